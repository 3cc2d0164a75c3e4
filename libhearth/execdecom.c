/*  execdecom.c - executors of a leaving worker, moved off and stopped once
    idle; see execdecom.h. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <czmq.h>

#include "libcore/intkeys.h"
#include "libcore/log.h"
#include "libcore/taskset_retire.h"
#include "libhearth/execdecom.h"

struct execdecom {
    hearth_taskset_t *ts; /* the task set (borrowed) */
    zhashx_t *reasons;    /* exec id -> why its worker leaves (owned
                             strings) */
};

static void
s_free_str (void **item)
{
    free (*item);
    *item = NULL;
}

execdecom_t *
execdecom_new (hearth_taskset_t *ts)
{
    execdecom_t *self = calloc (1, sizeof *self);
    if (!self || !(self->reasons = zhashx_new ())) {
        free (self);
        return NULL;
    }
    hearth_intkeys_setup (self->reasons);
    zhashx_set_destructor (self->reasons, s_free_str);
    self->ts = ts;
    return self;
}

void
execdecom_destroy (execdecom_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    zhashx_destroy (&(*self_p)->reasons);
    free (*self_p);
    *self_p = NULL;
}

/* Retire exec_id and move its queued attempts, if the task set has it
   (registered).  Returns the attempts moved, 0 when not there. */
static int
s_retire (execdecom_t *self, int exec_id)
{
    if (hearth_taskset_executor_attempts (self->ts, exec_id) < 0)
        return 0;
    hearth_taskset_retire_executor (self->ts, exec_id);
    int moved = hearth_taskset_move_queued (self->ts, exec_id);
    return moved > 0 ? moved : 0;
}

int
execdecom_add (execdecom_t *self, int exec_id, const char *reason)
{
    if (zhashx_lookup (self->reasons, hearth_intkey (exec_id)))
        return 0;
    char *why = strdup (reason ? reason : "its worker leaves");
    if (!why || zhashx_insert (self->reasons, hearth_intkey (exec_id), why)) {
        free (why);
        return -1;
    }
    int moved = s_retire (self, exec_id);
    log_info ("executor %d: its worker leaves (%s): offered nothing more, "
              "%d queued tasks moved to other executors, %lld running there "
              "finish first",
              exec_id, why, moved,
              (long long) (hearth_taskset_executor_attempts (self->ts, exec_id)
                           - moved));
    return moved;
}

size_t
execdecom_idle (execdecom_t *self, int *ids, size_t max)
{
    size_t n = 0;
    for (char *r = zhashx_first (self->reasons); r && n < max;
         r = zhashx_next (self->reasons)) {
        /* the key is the id + 1 (intkeys.h) */
        int id = (int) ((uintptr_t) zhashx_cursor (self->reasons) - 1u);
        s_retire (self, id); /* one that registered since */
        if (hearth_taskset_executor_attempts (self->ts, id) == 0)
            ids[n++] = id;
    }
    return n;
}

const char *
execdecom_reason (const execdecom_t *self, int exec_id)
{
    return zhashx_lookup (self->reasons, hearth_intkey (exec_id));
}

void
execdecom_forget (execdecom_t *self, int exec_id)
{
    zhashx_delete (self->reasons, hearth_intkey (exec_id));
}
