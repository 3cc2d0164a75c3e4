/*  alloc.c - Spark standalone's scheduling pass as a pure function; see
    alloc.h for the rules and docs/cluster.md for worked examples. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/alloc.h"

/* Free resources of every worker, changed as the pass hands them out. */
typedef struct {
    int *cores;         /* free cores per input worker */
    int64_t *memory_mb; /* free memory per input worker */
    size_t *order;      /* scratch: worker indices (shuffle, usable) */
    int *assigned;      /* scratch: cores per usable worker */
    int *group_used;    /* cores each input group holds so far */
    hearth_alloc_resource_t *res; /* free custom resources of every worker,
                                     worker i's from res_first[i] */
    size_t *res_first;            /* per worker: its first entry in res */
} s_pool_t;

static void
s_pool_release (s_pool_t *pool)
{
    free (pool->cores);
    free (pool->memory_mb);
    free (pool->order);
    free (pool->assigned);
    free (pool->group_used);
    free (pool->res);
    free (pool->res_first);
}

static int
s_pool_init (s_pool_t *pool, const hearth_alloc_input_t *in)
{
    size_t n = in->nworkers ? in->nworkers : 1;
    pool->cores = calloc (n, sizeof *pool->cores);
    pool->memory_mb = calloc (n, sizeof *pool->memory_mb);
    pool->order = calloc (n, sizeof *pool->order);
    pool->assigned = calloc (n, sizeof *pool->assigned);
    pool->group_used =
        calloc (in->ngroups ? in->ngroups : 1, sizeof *pool->group_used);
    size_t nres = 1;
    for (size_t i = 0; i < in->nworkers; i++)
        nres += in->workers[i].nresources;
    pool->res = calloc (nres, sizeof *pool->res);
    pool->res_first = calloc (n, sizeof *pool->res_first);
    if (!pool->cores || !pool->memory_mb || !pool->order || !pool->assigned
        || !pool->group_used || !pool->res || !pool->res_first) {
        s_pool_release (pool);
        return -1;
    }
    nres = 0;
    for (size_t i = 0; i < in->nworkers; i++) {
        pool->cores[i] = in->workers[i].cores_free;
        pool->memory_mb[i] = in->workers[i].memory_free_mb;
        pool->res_first[i] = nres;
        for (size_t r = 0; r < in->workers[i].nresources; r++)
            pool->res[nres++] = in->workers[i].resources[r];
    }
    for (size_t i = 0; i < in->ngroups; i++)
        pool->group_used[i] = in->groups[i].cores_used;
    return 0;
}

/* The index of group in the input's groups, or -1 (none, or not one of
   them: no cap). */
static long
s_group (const hearth_alloc_input_t *in, const hearth_alloc_group_t *group)
{
    if (!group || !in->groups || group < in->groups
        || group >= in->groups + in->ngroups)
        return -1;
    return (long) (group - in->groups);
}

/* Cores group g may still take (0 when it is at or past its cap). */
static int
s_group_room (const hearth_alloc_input_t *in, const s_pool_t *pool, long g)
{
    int room = in->groups[g].cores_limit - pool->group_used[g];
    return room > 0 ? room : 0;
}

int
hearth_alloc_resource_room (const hearth_alloc_app_t *app,
                            const hearth_alloc_worker_t *w)
{
    int room = INT32_MAX;
    for (size_t i = 0; i < app->nresources; i++) {
        int have = 0, want = app->resources[i].count;
        for (size_t j = 0; j < w->nresources; j++)
            if (strcmp (w->resources[j].name, app->resources[i].name) == 0)
                have = w->resources[j].count;
        if (want > 0 && have / want < room)
            room = have / want;
    }
    return room;
}

/* Worker w as it stands in the pool now. */
static hearth_alloc_worker_t
s_pool_worker (const s_pool_t *pool, const hearth_alloc_input_t *in, size_t w)
{
    return (hearth_alloc_worker_t){
        in->workers[w].alive, pool->cores[w], pool->memory_mb[w],
        pool->res + pool->res_first[w], in->workers[w].nresources};
}

/* Take one executor's resources of app from worker w. */
static void
s_take_resources (s_pool_t *pool, const hearth_alloc_input_t *in, size_t w,
                  const hearth_alloc_app_t *app)
{
    hearth_alloc_resource_t *res = pool->res + pool->res_first[w];
    for (size_t i = 0; i < app->nresources; i++)
        for (size_t j = 0; j < in->workers[w].nresources; j++)
            if (strcmp (res[j].name, app->resources[i].name) == 0)
                res[j].count -= app->resources[i].count;
}

static bool
s_can_launch (const s_pool_t *pool, size_t w, int cores, int64_t memory_mb)
{
    return pool->cores[w] >= cores && pool->memory_mb[w] >= memory_mb;
}

/* Alive workers into pool->order, shuffled (Fisher-Yates) when a random
   source is given.  Returns how many. */
static size_t
s_shuffled_alive (const hearth_alloc_input_t *in, s_pool_t *pool)
{
    size_t n = 0;
    for (size_t i = 0; i < in->nworkers; i++)
        if (in->workers[i].alive)
            pool->order[n++] = i;
    for (size_t i = n; in->rand && i > 1; i--) {
        size_t j = in->rand (in->rand_arg, (unsigned) i) % i;
        size_t tmp = pool->order[i - 1];
        pool->order[i - 1] = pool->order[j];
        pool->order[j] = tmp;
    }
    return n;
}

/* Spark's loop over waitingDrivers: round-robin from a position that
   carries over from one driver to the next. */
static int
s_schedule_drivers (const hearth_alloc_input_t *in, s_pool_t *pool,
                    hearth_alloc_result_t *result)
{
    size_t nalive = s_shuffled_alive (in, pool);
    size_t pos = 0;
    if (in->ndrivers == 0 || nalive == 0)
        return 0;
    result->drivers = calloc (in->ndrivers, sizeof *result->drivers);
    if (!result->drivers)
        return -1;
    for (size_t d = 0; d < in->ndrivers; d++) {
        const hearth_alloc_driver_t *drv = &in->drivers[d];
        long g = s_group (in, drv->group);
        if (g >= 0 && s_group_room (in, pool, g) < drv->cores) {
            result->drivers_capped[d] = true;
            continue;
        }
        for (size_t visited = 0; visited < nalive; visited++) {
            size_t w = pool->order[pos];
            pos = (pos + 1) % nalive;
            if (s_can_launch (pool, w, drv->cores, drv->memory_mb)) {
                pool->cores[w] -= drv->cores;
                pool->memory_mb[w] -= drv->memory_mb;
                if (g >= 0)
                    pool->group_used[g] += drv->cores;
                result->drivers[result->ndrivers++] =
                    (hearth_alloc_driver_launch_t){d, w};
                break;
            }
        }
    }
    return 0;
}

/* The usable-worker order of every application of the pass: the alive
   workers with free cores, by free cores, most first, ties in input order
   (rule 3).  Spark sorts the usable workers again for each application;
   here one bucket per free-core count, each in input order, is built
   once after the drivers and kept as executors take cores, and an
   application walks it only as far as it can get cores: a pass with 100
   waiting applications over 50,000 workers went from 100 scans and sorts
   of the 50,000 (about 450 million instructions) to a walk of a few
   hundred each (docs/performance.md, benchmark 7). */
typedef struct {
    size_t *w;   /* worker indices, ascending: w[head .. head + n) */
    size_t head; /* free slots before the first */
    size_t n;    /* entries */
    size_t cap;  /* allocated */
} s_bucket_t;

typedef struct {
    s_bucket_t *b; /* b[c]: the workers with c free cores */
    int max;       /* highest c */
} s_order_t;

static void
s_order_release (s_order_t *o)
{
    for (int c = 0; o->b && c <= o->max; c++)
        free (o->b[c].w);
    free (o->b);
    o->b = NULL;
}

/* Where worker w is or would go in b: the first entry not below it. */
static size_t
s_bucket_find (const s_bucket_t *b, size_t w)
{
    size_t lo = 0, hi = b->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (b->w[b->head + mid] < w)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Entries move toward whichever end is nearer: the workers an
   application takes cores from are the first of their buckets, and they
   go to the first places of the next ones down, so most moves are of a
   few entries at the front, not of the whole bucket. */
static int
s_bucket_add (s_bucket_t *b, size_t w)
{
    /* the bucket's building adds in input order: at the end */
    size_t i =
        b->n && b->w[b->head + b->n - 1] < w ? b->n : s_bucket_find (b, w);
    if (i < b->n / 2 && b->head > 0) {
        memmove (b->w + b->head - 1, b->w + b->head, i * sizeof *b->w);
        b->head--;
    }
    else {
        if (b->head + b->n == b->cap) { /* no room after: re-centre */
            size_t cap = b->cap ? b->cap * 2 : 16;
            size_t *grown = malloc (cap * sizeof *grown);
            if (!grown)
                return -1;
            size_t head = (cap - b->n) / 2;
            if (b->n)
                memcpy (grown + head, b->w + b->head, b->n * sizeof *grown);
            free (b->w);
            b->w = grown;
            b->head = head;
            b->cap = cap;
        }
        memmove (b->w + b->head + i + 1, b->w + b->head + i,
                 (b->n - i) * sizeof *b->w);
    }
    b->w[b->head + i] = w;
    b->n++;
    return 0;
}

static void
s_bucket_remove (s_bucket_t *b, size_t w)
{
    size_t i = s_bucket_find (b, w);
    if (i == b->n || b->w[b->head + i] != w)
        return;
    if (i < b->n / 2) {
        memmove (b->w + b->head + 1, b->w + b->head, i * sizeof *b->w);
        b->head++;
    }
    else
        memmove (b->w + b->head + i, b->w + b->head + i + 1,
                 (b->n - i - 1) * sizeof *b->w);
    b->n--;
}

static int
s_order_init (s_order_t *o, const hearth_alloc_input_t *in,
              const s_pool_t *pool)
{
    o->max = 0;
    for (size_t w = 0; w < in->nworkers; w++)
        if (in->workers[w].alive && pool->cores[w] > o->max)
            o->max = pool->cores[w];
    if (!(o->b = calloc ((size_t) o->max + 1, sizeof *o->b)))
        return -1;
    for (size_t w = 0; w < in->nworkers; w++)
        if (in->workers[w].alive && pool->cores[w] > 0
            && s_bucket_add (&o->b[pool->cores[w]], w) < 0) {
            s_order_release (o);
            return -1;
        }
    return 0;
}

/* Worker w had was free cores and has pool->cores[w] now. */
static int
s_order_move (s_order_t *o, const s_pool_t *pool, size_t w, int was)
{
    int now = pool->cores[w];
    if (now == was)
        return 0;
    s_bucket_remove (&o->b[was], w);
    return now > 0 ? s_bucket_add (&o->b[now], w) : 0;
}

static bool
s_usable (const hearth_alloc_input_t *in, const s_pool_t *pool, size_t w,
          const hearth_alloc_app_t *app, int min_cores)
{
    hearth_alloc_worker_t now = s_pool_worker (pool, in, w);
    return in->workers[w].alive && (!app->on_workers || app->on_workers[w])
           && s_can_launch (pool, w, min_cores, app->memory_per_executor_mb)
           && hearth_alloc_resource_room (app, &now) >= 1;
}

/* The first usable workers for app into pool->order, in the usable
   order: as many as the pass can give anything to, that is until they
   hold app's cores left and number cores left / min_cores (each has at
   least min_cores free), or all of them.  Whatever the rest of the pass
   computes from them (the cap's want, the reach) is then what it would
   be from all the usable workers.  Returns how many. */
static size_t
s_usable_workers (const hearth_alloc_input_t *in, s_pool_t *pool,
                  const s_order_t *o, const hearth_alloc_app_t *app)
{
    int min_cores = app->cores_per_executor ? app->cores_per_executor : 1;
    int64_t want = app->cores_left, free_sum = 0;
    size_t n = 0;
    const bool *prefer = app->prefer_workers;
    /* rule 8: the preferred workers first, then the others */
    for (int round = prefer ? 0 : 1; round < 2; round++)
        for (int c = o->max; c >= min_cores; c--)
            for (size_t i = 0; i < o->b[c].n; i++) {
                size_t w = o->b[c].w[o->b[c].head + i];
                if ((prefer && prefer[w] != (round == 0))
                    || !s_usable (in, pool, w, app, min_cores))
                    continue;
                pool->order[n++] = w;
                free_sum += pool->cores[w];
                if (free_sum >= want && (int64_t) n >= want / min_cores)
                    return n;
            }
    return n;
}

/* Only the first cores_left / min_cores usable workers can get anything:
   spread-out grants each at least once in order until the cores run out,
   consolidate fills them in order.  Cutting the list there keeps the pass
   linear when many workers are free and an app wants a few cores. */
static int64_t
s_free_total (const s_pool_t *pool, size_t nusable)
{
    int64_t free_total = 0;
    for (size_t pos = 0; pos < nusable; pos++)
        free_total += pool->cores[pool->order[pos]];
    return free_total;
}

static size_t
s_reachable (const s_pool_t *pool, const hearth_alloc_app_t *app,
             size_t nusable)
{
    int min_cores = app->cores_per_executor ? app->cores_per_executor : 1;
    int64_t free_total = s_free_total (pool, nusable);
    int64_t to_assign =
        app->cores_left < free_total ? app->cores_left : free_total;
    int64_t reach = to_assign / min_cores;
    return (size_t) reach < nusable ? (size_t) reach : nusable;
}

/* State of one scheduleExecutorsOnWorkers() call. */
typedef struct {
    const hearth_alloc_app_t *app;        /* the application */
    const hearth_alloc_worker_t *workers; /* cores_free and memory_free_mb */
    const size_t *usable;                 /* usable worker indices */
    int *assigned;                        /* cores per usable position */
    int64_t to_assign;                    /* cores still to hand out */
    int min_cores;                        /* cores of one grant */
    bool one_per_worker;                  /* cores_per_executor unset */
} s_assign_t;

/* Spark's canLaunchExecutorForApp(pos). */
static bool
s_can_grant (const s_assign_t *a, size_t pos)
{
    const hearth_alloc_worker_t *w = &a->workers[a->usable[pos]];
    if (a->to_assign < a->min_cores
        || w->cores_free - a->assigned[pos] < a->min_cores)
        return false;
    int64_t executors = a->one_per_worker ? (a->assigned[pos] > 0)
                                          : a->assigned[pos] / a->min_cores;
    if (a->one_per_worker && executors > 0)
        return true; /* more cores for the executor already there */
    if (executors >= hearth_alloc_resource_room (a->app, w))
        return false; /* no addresses for another one */
    int64_t memory_used = executors * a->app->memory_per_executor_mb;
    return w->memory_free_mb - memory_used >= a->app->memory_per_executor_mb;
}

void
hearth_alloc_assign_cores (const hearth_alloc_app_t *app,
                           const hearth_alloc_worker_t *workers,
                           const size_t *usable, size_t nusable,
                           bool spread_out, int *assigned)
{
    s_assign_t a = {app, workers, usable, assigned, 0, 1, true};
    a.min_cores = app->cores_per_executor ? app->cores_per_executor : 1;
    a.one_per_worker = app->cores_per_executor == 0;
    int64_t free_total = 0;
    for (size_t pos = 0; pos < nusable; pos++) {
        assigned[pos] = 0;
        free_total += workers[usable[pos]].cores_free;
    }
    a.to_assign = app->cores_left < free_total ? app->cores_left : free_total;
    bool progress = true;
    while (progress && a.to_assign >= a.min_cores) {
        progress = false;
        for (size_t pos = 0; pos < nusable; pos++) {
            while (s_can_grant (&a, pos)) {
                a.to_assign -= a.min_cores;
                assigned[pos] += a.min_cores;
                progress = true;
                if (spread_out)
                    break;
            }
        }
    }
}

static int
s_add_executor (hearth_alloc_result_t *result, hearth_alloc_executor_t exec)
{
    if (result->nexecutors == result->executors_alloc) {
        size_t n = result->executors_alloc ? result->executors_alloc * 2 : 16;
        hearth_alloc_executor_t *e = realloc (result->executors, n * sizeof *e);
        if (!e)
            return -1;
        result->executors = e;
        result->executors_alloc = n;
    }
    result->executors[result->nexecutors++] = exec;
    return 0;
}

/* Turn the cores assigned on each usable worker into executors (Spark's
   allocateWorkerResourceToExecutors) and take them from the pool. */
static int
s_launch_assigned (s_pool_t *pool, const hearth_alloc_input_t *in,
                   const hearth_alloc_app_t *app, size_t a, size_t nusable,
                   hearth_alloc_result_t *result)
{
    int cpe = app->cores_per_executor;
    for (size_t pos = 0; pos < nusable; pos++) {
        int cores = pool->assigned[pos];
        if (cores <= 0)
            continue;
        size_t w = pool->order[pos];
        int count = cpe ? cores / cpe : 1;
        for (int i = 0; i < count; i++) {
            hearth_alloc_executor_t e = {a, w, cpe ? cpe : cores,
                                         app->memory_per_executor_mb};
            if (s_add_executor (result, e) < 0)
                return -1;
            pool->cores[w] -= e.cores;
            pool->memory_mb[w] -= e.memory_mb;
            s_take_resources (pool, in, w, app);
        }
    }
    return 0;
}

/* The reachable workers' free resources as they stand now. */
static void
s_pool_view (const s_pool_t *pool, const hearth_alloc_input_t *in,
             hearth_alloc_worker_t *view, size_t reach)
{
    for (size_t pos = 0; pos < reach; pos++) {
        size_t w = pool->order[pos];
        view[w] = s_pool_worker (pool, in, w);
    }
}

/* Cut app's cores left (in *eff) to what its group has room for, and
   say whether the cap holds it back: it leaves fewer cores than the
   usable workers have free (and the app wants), or less than one
   executor.  False when app must be skipped. */
static bool
s_cap (const hearth_alloc_input_t *in, const s_pool_t *pool, long g, size_t a,
       size_t nusable, hearth_alloc_app_t *eff, hearth_alloc_result_t *result)
{
    int min_cores = eff->cores_per_executor ? eff->cores_per_executor : 1;
    if (g < 0)
        return true;
    int room = s_group_room (in, pool, g);
    int64_t free_total = s_free_total (pool, nusable);
    int64_t want = eff->cores_left < free_total ? eff->cores_left : free_total;
    if (room < min_cores || room < want)
        result->apps_capped[a] = true;
    if (room < eff->cores_left)
        eff->cores_left = room;
    return eff->cores_left >= min_cores;
}

bool
hearth_alloc_app_wants (const hearth_alloc_app_t *app)
{
    int min_cores = app->cores_per_executor ? app->cores_per_executor : 1;
    return app->cores_left >= min_cores
           && (!app->has_target || app->executors_left > 0);
}

/* Rule 6: cut app's cores left to what its executor target leaves room
   for.  False when it may get no new executor. */
static bool
s_target_cut (hearth_alloc_app_t *app)
{
    if (!app->has_target)
        return true;
    if (app->executors_left <= 0)
        return false;
    int64_t room = (int64_t) app->executors_left * app->cores_per_executor;
    if (app->cores_per_executor && room < app->cores_left)
        app->cores_left = (int) room;
    return true;
}

static int
s_schedule_apps (const hearth_alloc_input_t *in, s_pool_t *pool,
                 hearth_alloc_result_t *result)
{
    hearth_alloc_worker_t *view =
        calloc (in->nworkers ? in->nworkers : 1, sizeof *view);
    s_order_t order = {NULL, 0}; /* built for the first that can get any */
    if (!view)
        return -1;
    int rc = 0;
    for (size_t a = 0; a < in->napps && rc == 0; a++) {
        hearth_alloc_app_t app = in->apps[a];
        long g = s_group (in, app.group);
        if (!hearth_alloc_app_wants (&app) || !s_target_cut (&app))
            continue;
        if (!order.b && s_order_init (&order, in, pool) < 0) {
            rc = -1;
            break;
        }
        size_t nusable = s_usable_workers (in, pool, &order, &app);
        if (!s_cap (in, pool, g, a, nusable, &app, result))
            continue;
        size_t reach = s_reachable (pool, &app, nusable);
        if (app.has_target && !app.cores_per_executor
            && reach > (size_t) app.executors_left)
            reach = (size_t) app.executors_left; /* one executor each */
        if (reach == 0)
            continue;
        s_pool_view (pool, in, view, reach);
        hearth_alloc_assign_cores (&app, view, pool->order, reach,
                                   in->spread_out, pool->assigned);
        for (size_t pos = 0; g >= 0 && pos < reach; pos++)
            pool->group_used[g] += pool->assigned[pos];
        rc = s_launch_assigned (pool, in, &app, a, reach, result);
        for (size_t pos = 0; rc == 0 && pos < reach; pos++) {
            size_t w = pool->order[pos];
            rc = s_order_move (&order, pool, w, view[w].cores_free);
        }
    }
    s_order_release (&order);
    free (view);
    return rc;
}

int
hearth_alloc_schedule (const hearth_alloc_input_t *in,
                       hearth_alloc_result_t *result)
{
    s_pool_t pool;
    memset (result, 0, sizeof *result);
    if (s_pool_init (&pool, in) < 0)
        goto error;
    if (in->ngroups
        && (!(result->apps_capped =
                  calloc (in->napps ? in->napps : 1, sizeof (bool)))
            || !(result->drivers_capped = calloc (
                     in->ndrivers ? in->ndrivers : 1, sizeof (bool))))) {
        s_pool_release (&pool);
        goto error;
    }
    if (s_schedule_drivers (in, &pool, result) < 0
        || s_schedule_apps (in, &pool, result) < 0) {
        s_pool_release (&pool);
        goto error;
    }
    s_pool_release (&pool);
    return 0;
error:
    hearth_alloc_result_clear (result);
    errno = ENOMEM;
    return -1;
}

void
hearth_alloc_result_clear (hearth_alloc_result_t *result)
{
    if (!result)
        return;
    free (result->drivers);
    free (result->executors);
    free (result->apps_capped);
    free (result->drivers_capped);
    memset (result, 0, sizeof *result);
}
