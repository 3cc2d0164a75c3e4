/*  clusterup.c - when the driver's own local cluster is up (see
    clusterup.h). */
#include "config.h"

#include "libhearth/clusterup.h"

/* Longest wait for a local cluster's executors: they register within
   about 100 ms on a loaded machine; a count the master does not reach
   (a setting this does not model) costs this much once. */
static const int64_t s_up_bound_ms = 5000;

/* A local cluster's workers are small: unless told otherwise, an executor
   takes a whole worker's memory (as in local-cluster[2,1,512]). */
int64_t
clusterup_executor_memory_mb (const hearth_conf_t *conf,
                              const local_setup_t *setup)
{
    if (setup->mode == MODE_LOCAL_CLUSTER
        && hearth_conf_source (conf, "executor-memory") <= HEARTH_SRC_DEFAULT)
        return setup->worker_memory_mb;
    return (int64_t) (hearth_conf_bytes (conf, "executor-memory")
                      / (1024 * 1024));
}

int
clusterup_expected (const hearth_conf_t *conf, const local_setup_t *setup)
{
    const char *const *res;
    if (setup->mode == MODE_LOCAL) /* local[N]: its one executor */
        return 1;
    if (setup->mode != MODE_LOCAL_CLUSTER
        || hearth_conf_bool (conf, "dynamic-allocation")
        || hearth_conf_list (conf, "executor-resource", &res) > 0)
        return 0;
    int64_t cores = hearth_conf_isset (conf, "executor-cores")
                        ? hearth_conf_int (conf, "executor-cores")
                        : setup->worker_cores;
    if (cores < 1 || cores > setup->worker_cores)
        return 0;
    int64_t mb = clusterup_executor_memory_mb (conf, setup);
    int64_t per_worker = setup->worker_cores / cores;
    if (mb > 0 && setup->worker_memory_mb / mb < per_worker)
        per_worker = setup->worker_memory_mb / mb;
    int64_t n = per_worker * setup->workers;
    if (hearth_conf_isset (conf, "total-executor-cores")
        && hearth_conf_int (conf, "total-executor-cores") / cores < n)
        n = hearth_conf_int (conf, "total-executor-cores") / cores;
    return n > 0 && n < 65536 ? (int) n : 0;
}

void
clusterup_start (clusterup_t *self, const hearth_conf_t *conf,
                 const local_setup_t *setup, int64_t now_ms)
{
    self->expected = clusterup_expected (conf, setup);
    self->deadline_ms = now_ms + s_up_bound_ms;
}

static void
s_count (void *arg, int exec_id, int cores, bool registered)
{
    (void) exec_id;
    (void) cores;
    if (registered)
        (*(int *) arg)++;
}

bool
clusterup_ready (const clusterup_t *self, const execs_t *execs, int64_t now_ms)
{
    if (self->expected <= 0 || now_ms >= self->deadline_ms)
        return true;
    int registered = 0;
    execs_each (execs, s_count, &registered);
    return registered >= self->expected;
}
