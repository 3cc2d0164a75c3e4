/*  taskset_place.c - locality: the places executors are on, the places
    tasks prefer, and the levels offers go by (issue 37; taskset.h,
    hearth_locality_t).

    A place is a name: a host, "worker:ID" or "KEY=VALUE"; each is
    interned once in the board's table, with the executors on it now.  A
    stage whose tasks prefer places keeps, from its first offer on, one
    list per place of the tasks that prefer it (Spark's pending tasks by
    host), and cursors over its tasks; every list and cursor moves only
    forward, past tasks launched since, so a stage's offers cost in all
    about its preferences and tasks, not that times the offers.

    How Spark's delay scheduling is bettered (its users set the wait to 0
    because its timer idles cores, SPARK-18886): a task whose every
    preferred place has no executor now, nor one coming, is offered as
    one that prefers nothing (there is nothing to wait for), tasks that
    prefer nothing go at every level, and a level's wait restarts only
    when a task is launched at it, and only until an executor has gone
    without a task because of the wait: from then on the preferred
    places' own launches no longer renew it, so an idle core waits one
    wait at most, not as long as the busy host keeps launching (Spark's
    legacy timer, reset by every local launch, idled the other cores for
    the whole stage; its fix, SPARK-18886, stops resetting it in a round
    of offers with a rejection, and this is that rule offer by offer).
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/taskset_int.h"

/* Entries of a stage's given preferences at first. */
static const size_t s_given_first_alloc = 64;

/* ---- places --------------------------------------------------------- */

int
ts_place_index (hearth_taskset_t *self, const char *name)
{
    for (size_t i = 0; i < self->nplaces; i++)
        if (strcmp (self->places[i], name) == 0)
            return (int) i;
    size_t n = self->nplaces + 1;
    char **places = realloc (self->places, n * sizeof *places);
    if (places)
        self->places = places;
    size_t *counts = realloc (self->place_execs, n * sizeof *counts);
    if (counts)
        self->place_execs = counts;
    int *racks = realloc (self->place_rack, n * sizeof *racks);
    if (racks)
        self->place_rack = racks;
    size_t *coming = realloc (self->place_coming, n * sizeof *coming);
    if (coming)
        self->place_coming = coming;
    char *copy = places && counts && racks && coming ? strdup (name) : NULL;
    if (!copy)
        return -1;
    self->places[self->nplaces] = copy;
    self->place_execs[self->nplaces] = 0;
    self->place_coming[self->nplaces] = 0;
    self->place_rack[self->nplaces] = -1;
    return (int) self->nplaces++;
}

void
ts_place_count (hearth_taskset_t *self, const ts_exec_t *e, bool on)
{
    if (e->host >= 0)
        self->place_execs[e->host] += on ? 1 : (size_t) -1;
    for (size_t i = 0; i < e->nplaces; i++)
        self->place_execs[e->places[i]] += on ? 1 : (size_t) -1;
}

int
hearth_taskset_set_executor_places (hearth_taskset_t *self, int exec_id,
                                    const char *const *places, size_t n,
                                    const char *rack)
{
    ts_exec_t *e = ts_exec (self, exec_id);
    if (!e)
        return errno = ENOENT, -1;
    int *ids = n ? malloc (n * sizeof *ids) : NULL;
    if (n && !ids)
        return errno = ENOMEM, -1;
    for (size_t i = 0; i < n; i++)
        if ((ids[i] = ts_place_index (self, places[i])) < 0) {
            free (ids);
            return errno = ENOMEM, -1;
        }
    int rack_id = -1;
    if (rack && *rack) {
        char name[512];
        snprintf (name, sizeof name, "rack=%s", rack);
        if ((rack_id = ts_place_index (self, name)) < 0) {
            free (ids);
            return errno = ENOMEM, -1;
        }
    }
    ts_place_count (self, e, false); /* counted again with its new places */
    free (e->places);
    e->places = ids;
    e->nplaces = n;
    e->rack = rack_id;
    ts_place_count (self, e, true);
    if (rack_id >= 0 && e->host >= 0) {
        self->place_rack[e->host] = rack_id;
        self->racks = true;
    }
    return 0;
}

/* Count one executor coming to place name, or one less. */
static int
s_expect_one (hearth_taskset_t *self, const char *name, bool coming)
{
    int p = ts_place_index (self, name);
    if (p < 0)
        return errno = ENOMEM, -1;
    if (coming)
        self->place_coming[p]++;
    else if (self->place_coming[p] > 0)
        self->place_coming[p]--;
    return 0;
}

int
hearth_taskset_expect (hearth_taskset_t *self, const char *host,
                       const char *const *places, size_t n, bool coming)
{
    if (host && *host && s_expect_one (self, host, coming) < 0)
        return -1;
    for (size_t i = 0; i < n; i++)
        if (s_expect_one (self, places[i], coming) < 0)
            return -1;
    return 0;
}

void
ts_place_exec_free (ts_exec_t *e)
{
    free (e->places);
    e->places = NULL;
    e->nplaces = 0;
}

void
ts_place_free (hearth_taskset_t *self)
{
    for (size_t i = 0; i < self->nplaces; i++)
        free (self->places[i]);
    free (self->places);
    free (self->place_execs);
    free (self->place_rack);
    free (self->place_coming);
    self->places = NULL;
    self->place_execs = NULL;
    self->place_rack = NULL;
    self->place_coming = NULL;
    self->nplaces = 0;
}

/* ---- preferences ---------------------------------------------------- */

int
hearth_taskset_prefer (hearth_taskset_t *self, uint32_t stage, uint64_t index,
                       const char *const *places, size_t n)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st || index >= st->ntasks || (st->prefs && st->prefs->built))
        return errno = EINVAL, -1;
    if (!st->prefs && !(st->prefs = calloc (1, sizeof *st->prefs)))
        return errno = ENOMEM, -1;
    ts_prefs_t *p = st->prefs;
    for (size_t i = 0; i < n; i++) {
        if (p->ngiven == p->given_alloc) {
            size_t alloc =
                p->given_alloc ? p->given_alloc * 2 : s_given_first_alloc;
            ts_pref_t *given = realloc (p->given, alloc * sizeof *given);
            if (!given)
                return errno = ENOMEM, -1;
            p->given = given;
            p->given_alloc = alloc;
        }
        int place = ts_place_index (self, places[i]);
        if (place < 0)
            return errno = ENOMEM, -1;
        p->given[p->ngiven++] = (ts_pref_t){index, place};
    }
    return 0;
}

int
hearth_taskset_require (hearth_taskset_t *self, uint32_t stage,
                        const char *const *places, size_t n)
{
    ts_stage_t *st = ts_stage (self, stage);
    if (!st || st->offered)
        return errno = EINVAL, -1;
    int *ids = realloc (st->require, (st->nrequire + n + 1) * sizeof *ids);
    if (!ids)
        return errno = ENOMEM, -1;
    st->require = ids;
    for (size_t i = 0; i < n; i++) {
        int p = ts_place_index (self, places[i]);
        if (p < 0)
            return errno = ENOMEM, -1;
        st->require[st->nrequire++] = p;
    }
    return 0;
}

/* Whether e is on place. */
static bool
s_on (const ts_exec_t *e, int place)
{
    bool on = e->host == place;
    for (size_t i = 0; !on && i < e->nplaces; i++)
        on = e->places[i] == place;
    return on;
}

bool
ts_place_meets (const ts_exec_t *e, const ts_stage_t *st)
{
    for (size_t r = 0; r < st->nrequire; r++)
        if (!s_on (e, st->require[r]))
            return false;
    return true;
}

bool
hearth_taskset_requirement_met (const hearth_taskset_t *self, uint32_t stage)
{
    const ts_stage_t *st = ts_stage (self, stage);
    if (!st)
        return false;
    if (!st->nrequire)
        return true;
    for (void *e = zhashx_first (self->execs); e; e = zhashx_next (self->execs))
        if (!((ts_exec_t *) e)->retired && ts_place_meets (e, st))
            return true;
    return false;
}

/* Drop the stage's preferences (its requirement stays). */
static void
s_prefs_free (ts_stage_t *st)
{
    ts_prefs_t *p = st->prefs;
    if (!p)
        return;
    free (p->given);
    free (p->first);
    free (p->place);
    for (size_t i = 0; i < p->nlists; i++)
        free (p->lists[i].index);
    free (p->lists);
    free (p);
    st->prefs = NULL;
}

void
ts_place_stage_free (ts_stage_t *st)
{
    free (st->require);
    st->require = NULL;
    st->nrequire = 0;
    s_prefs_free (st);
}

/* Make the per-task and per-place tables from what was given (counting
   sorts: by task, then by place in task order).  -1 on no memory: the
   stage's preferences are dropped, its tasks offered as preferring
   nothing. */
static int
s_build (const hearth_taskset_t *self, ts_stage_t *st)
{
    ts_prefs_t *p = st->prefs;
    p->built = true;
    p->fresh_left = st->ntasks;
    p->level = HEARTH_LOC_NODE;
    p->nlists = self->nplaces;
    p->first = calloc (st->ntasks + 1, sizeof *p->first);
    p->place = malloc ((p->ngiven ? p->ngiven : 1) * sizeof *p->place);
    p->lists = calloc (p->nlists ? p->nlists : 1, sizeof *p->lists);
    if (!p->first || !p->place || !p->lists)
        return -1;
    for (size_t i = 0; i < p->ngiven; i++) {
        p->first[p->given[i].index + 1]++;
        p->lists[p->given[i].place].n++;
    }
    for (uint64_t t = 0; t < st->ntasks; t++)
        p->first[t + 1] += p->first[t];
    for (size_t l = 0; l < p->nlists; l++)
        if (p->lists[l].n
            && !(p->lists[l].index =
                     malloc (p->lists[l].n * sizeof (uint64_t))))
            return -1;
    /* fill, in task order: fill[] counts what each task has so far */
    uint32_t *fill = calloc (st->ntasks, sizeof *fill);
    if (!fill)
        return -1;
    for (size_t i = 0; i < p->ngiven; i++) {
        uint64_t t = p->given[i].index;
        p->place[p->first[t] + fill[t]++] = p->given[i].place;
    }
    free (fill);
    for (size_t l = 0; l < p->nlists; l++)
        p->lists[l].n = 0;
    for (uint64_t t = 0; t < st->ntasks; t++)
        for (uint32_t k = p->first[t]; k < p->first[t + 1]; k++) {
            ts_plist_t *list = &p->lists[p->place[k]];
            list->index[list->n++] = t;
        }
    free (p->given);
    p->given = NULL;
    p->ngiven = p->given_alloc = 0;
    return 0;
}

/* ---- offers --------------------------------------------------------- */

static bool
s_fresh (const ts_stage_t *st, uint64_t t)
{
    return st->tasks[t].state == TASK_PENDING && st->tasks[t].next_attempt == 0;
}

/* Whether an executor is on place p, or coming to it. */
static bool
s_served (const hearth_taskset_t *self, int p)
{
    return self->place_execs[p] > 0 || self->place_coming[p] > 0;
}

uint8_t
ts_place_level (const hearth_taskset_t *self, const ts_stage_t *st,
                const ts_exec_t *e, uint64_t t)
{
    const ts_prefs_t *p = st->prefs;
    if (!p || !p->built || p->first[t] == p->first[t + 1])
        return HEARTH_LOC_NO_PREF;
    bool served = false, rack = false;
    for (uint32_t k = p->first[t]; k < p->first[t + 1]; k++) {
        int place = p->place[k];
        if (s_on (e, place))
            return HEARTH_LOC_NODE;
        served = served || s_served (self, place);
        rack = rack || (e->rack >= 0 && self->place_rack[place] == e->rack);
    }
    return rack     ? HEARTH_LOC_RACK
           : served ? HEARTH_LOC_ANY
                    : HEARTH_LOC_NO_PREF;
}

/* Whether task t prefers a place some executor is on now, or coming
   to. */
static bool
s_awaited (const hearth_taskset_t *self, const ts_prefs_t *p, uint64_t t)
{
    for (uint32_t k = p->first[t]; k < p->first[t + 1]; k++)
        if (s_served (self, p->place[k]))
            return true;
    return false;
}

/* The next fresh task of list, or false when none is left. */
static bool
s_list_take (const ts_stage_t *st, ts_plist_t *list, uint64_t *index)
{
    while (list->head < list->n && !s_fresh (st, list->index[list->head]))
        list->head++;
    if (list->head == list->n)
        return false;
    *index = list->index[list->head++];
    return true;
}

/* A fresh task preferring a place e is on. */
static bool
s_take_node (const ts_stage_t *st, ts_prefs_t *p, const ts_exec_t *e,
             uint64_t *index)
{
    if (e->host >= 0 && (size_t) e->host < p->nlists
        && s_list_take (st, &p->lists[e->host], index))
        return true;
    for (size_t i = 0; i < e->nplaces; i++)
        if ((size_t) e->places[i] < p->nlists
            && s_list_take (st, &p->lists[e->places[i]], index))
            return true;
    return false;
}

/* A fresh task preferring nothing, or only places no executor is on. */
static bool
s_take_nopref (const hearth_taskset_t *self, const ts_stage_t *st,
               ts_prefs_t *p, uint64_t *index)
{
    for (; p->nopref_next < st->ntasks; p->nopref_next++) {
        uint64_t t = p->nopref_next;
        if (p->first[t] == p->first[t + 1] && s_fresh (st, t)) {
            *index = p->nopref_next++;
            return true;
        }
    }
    for (size_t l = 0; l < p->nlists; l++) {
        ts_plist_t *list = &p->lists[l];
        if (s_served (self, (int) l) || list->head == list->n)
            continue; /* awaited, or used up */
        /* each task of the list once: one still awaited elsewhere is in
           that place's list too */
        while (list->head < list->n) {
            uint64_t t = list->index[list->head++];
            if (s_fresh (st, t) && !s_awaited (self, p, t)) {
                *index = t;
                return true;
            }
        }
    }
    return false;
}

/* A fresh task preferring a host of rack. */
static bool
s_take_rack (const hearth_taskset_t *self, const ts_stage_t *st, ts_prefs_t *p,
             int rack, uint64_t *index)
{
    for (size_t l = 0; l < p->nlists; l++)
        if (self->place_rack[l] == rack
            && s_list_take (st, &p->lists[l], index))
            return true;
    return false;
}

/* Any fresh task. */
static bool
s_take_any (const ts_stage_t *st, ts_prefs_t *p, uint64_t *index)
{
    while (p->any_next < st->ntasks && !s_fresh (st, p->any_next))
        p->any_next++;
    if (p->any_next == st->ntasks)
        return false;
    *index = p->any_next++;
    return true;
}

/* The level after level once its wait is over. */
static int
s_next_level (const hearth_taskset_t *self, int level)
{
    return level == HEARTH_LOC_NODE && self->racks ? HEARTH_LOC_RACK
                                                   : HEARTH_LOC_ANY;
}

/* Move the stage's level on by its waits up to now_us. */
static void
s_wait_levels (const hearth_taskset_t *self, ts_prefs_t *p, int64_t now_us)
{
    int64_t wait = self->opts.locality_wait_us;
    if (wait <= 0) {
        p->level = HEARTH_LOC_ANY;
        return;
    }
    while (p->level != HEARTH_LOC_ANY && now_us - p->level_us >= wait) {
        p->level = s_next_level (self, p->level);
        p->level_us += wait;
    }
}

/* A task was launched at level: the stage comes back to it, its wait
   restarted, unless an executor has gone without a task because of the
   wait (it would only wait again). */
static void
s_launched_at (ts_prefs_t *p, int level, int64_t now_us)
{
    if (p->declined)
        return;
    p->level = level;
    p->level_us = now_us;
}

/* The level of task t launched on a place it prefers on e: PROCESS when
   that place is e itself ("executor:N": it keeps the task's input in
   memory), else NODE. */
static uint8_t
s_node_level (const hearth_taskset_t *self, const ts_prefs_t *p,
              const ts_exec_t *e, uint64_t t)
{
    for (uint32_t k = p->first[t]; k < p->first[t + 1]; k++)
        if (s_on (e, p->place[k])
            && strncmp (self->places[p->place[k]], "executor:", 9) == 0)
            return HEARTH_LOC_PROCESS;
    return HEARTH_LOC_NODE;
}

bool
ts_place_pick (hearth_taskset_t *self, ts_stage_t *st, const ts_exec_t *e,
               int64_t now_us, uint64_t *index, uint8_t *level)
{
    ts_prefs_t *p = st->prefs;
    if (!p->built) {
        p->level_us = now_us;
        if (s_build (self, st) < 0) {
            s_prefs_free (st); /* offered as preferring nothing */
            return false;
        }
    }
    if (p->fresh_left == 0)
        return false;
    s_wait_levels (self, p, now_us);
    bool found = false;
    if (s_take_node (st, p, e, index)) {
        *level = s_node_level (self, p, e, *index);
        s_launched_at (p, HEARTH_LOC_NODE, now_us);
        found = true;
    }
    else if (s_take_nopref (self, st, p, index)) {
        *level = HEARTH_LOC_NO_PREF;
        found = true;
    }
    else if (p->level >= HEARTH_LOC_RACK && e->rack >= 0
             && s_take_rack (self, st, p, e->rack, index)) {
        *level = HEARTH_LOC_RACK;
        s_launched_at (p, HEARTH_LOC_RACK, now_us);
        found = true;
    }
    else if (p->level == HEARTH_LOC_ANY && s_take_any (st, p, index)) {
        *level = HEARTH_LOC_ANY;
        s_launched_at (p, HEARTH_LOC_ANY, now_us);
        found = true;
    }
    if (found)
        p->fresh_left--;
    else if (p->fresh_left > 0 && p->level != HEARTH_LOC_ANY)
        p->declined = true; /* tasks wait for their places, a core idles */
    return found;
}
