/*  childgroups.c - the children's cgroups, made at their start and
    removed after their end; see childgroups.h. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/log.h"
#include "worker/childgroups.h"

/* How long the set waits, at its end, for killed processes to leave
   their groups (ms), checked every s_step_ms. */
static const int s_end_wait_ms = 2000, s_step_ms = 10;
/* How long a new child waits for the group of an earlier one of the same
   name (a driver's relaunch) to empty (ms). */
static const int s_reuse_wait_ms = 500;
static const int64_t s_MiB = 1024 * 1024;

struct childgroups {
    cgroups_t *cgroups;      /* the worker's tree (borrowed) */
    int overhead_percent;    /* memory limit: memory plus this % of it */
    int64_t overhead_min_mb; /* or plus this, whichever is more */
    int64_t pids_max;        /* per group, 0: any */
    zlistx_t *ending;        /* cgroup_t * of reaped children, killed, to
                                remove once empty (owned) */
};

childgroups_t *
childgroups_new (const childgroups_config_t *c)
{
    childgroups_t *self = calloc (1, sizeof *self);
    if (!self || !(self->ending = zlistx_new ())) {
        free (self);
        errno = ENOMEM;
        return NULL;
    }
    self->cgroups = c->cgroups;
    self->overhead_percent = c->overhead_percent;
    self->overhead_min_mb = c->overhead_min_mb;
    self->pids_max = c->pids_max;
    return self;
}

/* Remove the ended groups that are empty now (wait: until all are, or
   s_end_wait_ms). */
static void
s_remove_ended (childgroups_t *self, bool wait)
{
    for (int t = 0; zlistx_size (self->ending); t++) {
        for (cgroup_t *g = zlistx_first (self->ending); g;
             g = zlistx_next (self->ending)) {
            cgroup_kill (g);
            if (cgroup_destroy (&g) == 0)
                zlistx_delete (self->ending, zlistx_cursor (self->ending));
        }
        if (!wait || t * s_step_ms >= s_end_wait_ms)
            break;
        usleep (s_step_ms * 1000);
    }
}

void
childgroups_destroy (childgroups_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    childgroups_t *self = *self_p;
    s_remove_ended (self, true);
    for (cgroup_t *g = zlistx_first (self->ending); g;
         g = zlistx_next (self->ending)) {
        log_warn ("cgroup %s left behind: a process in it did not die",
                  cgroup_name (g));
        cgroup_forget (&g);
    }
    zlistx_destroy (&self->ending);
    free (self);
    *self_p = NULL;
    errno = saved;
}

int64_t
childgroups_memory_limit (const childgroups_t *self, int64_t memory_mb)
{
    int64_t overhead = memory_mb * self->overhead_percent / 100;
    if (overhead < self->overhead_min_mb)
        overhead = self->overhead_min_mb;
    return (memory_mb + overhead) * s_MiB;
}

/* An ended group of that name, waited for until empty and removed.
   Returns 0, or -1 when it is still in use. */
static int
s_reuse (childgroups_t *self, const char *name)
{
    for (cgroup_t *g = zlistx_first (self->ending); g;
         g = zlistx_next (self->ending)) {
        if (strcmp (cgroup_name (g), name) != 0)
            continue;
        /* killed at its reap: its processes are leaving it */
        for (int t = 0; t * s_step_ms < s_reuse_wait_ms && !cgroup_empty (g);
             t++) {
            cgroup_kill (g);
            usleep (s_step_ms * 1000);
        }
        if (cgroup_destroy (&g) < 0)
            return -1;
        zlistx_delete (self->ending, zlistx_cursor (self->ending));
        return 0;
    }
    return 0;
}

cgroup_t *
childgroups_create (childgroups_t *self, const char *name, const char *what,
                    int cores, int64_t memory_mb, hearth_error_t *err)
{
    if (s_reuse (self, name) < 0) {
        hearth_errprintf (err, "the cgroup %s of an earlier %s is still in use",
                          name, what);
        return NULL;
    }
    cgroup_limits_t l = {.memory_bytes =
                             childgroups_memory_limit (self, memory_mb),
                         .cores = cores,
                         .pids_max = self->pids_max};
    return cgroup_new (self->cgroups, name, &l, err);
}

void
childgroups_end (childgroups_t *self, cgroup_t **group_p)
{
    if (!*group_p)
        return;
    cgroup_kill (*group_p);
    if (cgroup_destroy (group_p) == 0)
        return;
    /* its processes are still leaving it: at a tick */
    if (!zlistx_add_end (self->ending, *group_p))
        log_warn ("cgroup %s left behind: out of memory",
                  cgroup_name (*group_p));
    *group_p = NULL;
}

void
childgroups_tick (childgroups_t *self)
{
    s_remove_ended (self, false);
}
