/*  cleanups.c - directories waiting to be removed, in due order; see
    cleanups.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/fstree.h"
#include "libcore/ids.h"
#include "libcore/log.h"
#include "worker/cleanups.h"

typedef struct {
    char name[HEARTH_ID_MAX + 1]; /* the directory under the root */
    int64_t due_ms;               /* when it goes */
} s_entry_t;

struct cleanups {
    char *root;        /* where the directories are */
    zlistx_t *entries; /* s_entry_t *, due order (owned) */
};

/* The list's order (zlistx's comparator). */
static int
s_compare_due (const void *a, const void *b)
{
    const s_entry_t *x = a, *y = b;
    return x->due_ms < y->due_ms ? -1 : x->due_ms > y->due_ms;
}

static void
s_free_entry (void **item)
{
    free (*item);
    *item = NULL;
}

cleanups_t *
cleanups_new (const char *root)
{
    cleanups_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->root = strdup (root);
    self->entries = zlistx_new ();
    if (!self->root || !self->entries) {
        cleanups_destroy (&self);
        return NULL;
    }
    zlistx_set_destructor (self->entries, s_free_entry);
    zlistx_set_comparator (self->entries, s_compare_due);
    return self;
}

void
cleanups_destroy (cleanups_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    cleanups_t *self = *self_p;
    zlistx_destroy (&self->entries);
    free (self->root);
    free (self);
    *self_p = NULL;
    errno = saved;
}

static s_entry_t *
s_find (cleanups_t *self, const char *name)
{
    for (s_entry_t *e = zlistx_first (self->entries); e;
         e = zlistx_next (self->entries))
        if (strcmp (e->name, name) == 0)
            return e; /* the list's cursor is on it */
    return NULL;
}

void
cleanups_add (cleanups_t *self, const char *name, int64_t due_ms)
{
    if (s_find (self, name))
        return;
    s_entry_t *e = calloc (1, sizeof *e);
    if (!e)
        return;
    snprintf (e->name, sizeof e->name, "%s", name);
    e->due_ms = due_ms;
    /* searched from the end: most often it goes last */
    if (!zlistx_insert (self->entries, e, false))
        free (e);
}

void
cleanups_cancel (cleanups_t *self, const char *name)
{
    if (s_find (self, name))
        zlistx_delete (self->entries, zlistx_cursor (self->entries));
}

void
cleanups_remove_due (cleanups_t *self, int64_t now_ms, cleanups_busy_fn *busy,
                     void *arg)
{
    s_entry_t *e;
    for (e = zlistx_first (self->entries); e && now_ms >= e->due_ms;
         e = zlistx_next (self->entries))
        if (!busy || !busy (arg, e->name))
            break;
    if (!e || now_ms < e->due_ms)
        return;
    char dir[4096];
    if (snprintf (dir, sizeof dir, "%s/%s", self->root, e->name)
        < (int) sizeof dir) {
        log_info ("removing %s", dir);
        hearth_rm_tree (dir);
    }
    zlistx_delete (self->entries, zlistx_cursor (self->entries));
}
