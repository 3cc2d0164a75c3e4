/*  webmetrics.c - the worker's /metrics text (Prometheus); see web.h.
    Read when scraped: the children table's usage, the history's exit
    counts (webstate.h), the block server's bytes, the web server's
    counters.  Labels are states and reasons only. */
#include "config.h"

#include "libcore/prom.h"
#include "libcore/units.h"
#include "libcore/web.h"
#include "libcore/webprom.h"
#include "worker/web.h"
#include "worker/webstate.h"

static void
s_gauge (hearth_prom_t *p, const char *name, const char *help,
         const char *label, const char *const *values, const double *v, int n)
{
    hearth_prom_family (p, name, "gauge", help);
    for (int i = 0; i < n; i++)
        hearth_prom_sample (p, name, label, label ? values[i] : NULL, v[i]);
}

static void
s_counter (hearth_prom_t *p, const char *name, const char *help, double v)
{
    hearth_prom_family (p, name, "counter", help);
    hearth_prom_sample (p, name, NULL, NULL, v);
}

char *
worker_web_metrics (worker_t *w, size_t *len)
{
    static const char *const used_free[] = {"used", "free"};
    static const char *const running[] = {"RUNNING"};
    static const char *const reasons[] = {"EXITED", "FAILED", "KILLED"};
    hearth_prom_t *p = hearth_prom_new ();
    if (!p)
        return NULL;
    int cores;
    int64_t mem;
    children_usage (w->children, &cores, &mem);
    double v[3] = {worker_linked (w) ? 1 : 0};
    s_gauge (p, "hearth_worker_registered",
             "1 when registered with its master.", NULL, NULL, v, 1);
    v[0] = cores;
    v[1] = w->cores > cores ? w->cores - cores : 0;
    s_gauge (p, "hearth_worker_cores",
             "Cores this worker offers, used and free.", "state", used_free, v,
             2);
    v[0] = (double) mem * HEARTH_MiB;
    v[1] = w->memory_mb > mem ? (double) (w->memory_mb - mem) * HEARTH_MiB : 0;
    s_gauge (p, "hearth_worker_memory_bytes",
             "Memory this worker offers, used and free.", "state", used_free, v,
             2);
    v[0] = (double) children_count (w->children, &execs_kind);
    s_gauge (p, "hearth_worker_executors", "Executors by state (running ones).",
             "state", running, v, 1);
    v[0] = (double) children_count (w->children, &drivers_kind);
    s_gauge (p, "hearth_worker_drivers",
             "Cluster-mode drivers by state (running ones).", "state", running,
             v, 1);
    webstate_exits_t x = webstate_exits (w->webstate);
    hearth_prom_family (p, "hearth_worker_executor_exits_total", "counter",
                        "Executors ended here, by how.");
    double counts[3] = {(double) x.exited, (double) x.failed,
                        (double) x.killed};
    for (int i = 0; i < 3; i++)
        hearth_prom_sample (p, "hearth_worker_executor_exits_total", "reason",
                            reasons[i], counts[i]);
    v[0] = w->shuffle ? (double) shuffle_bytes (w->shuffle) : 0;
    s_gauge (p, "hearth_worker_shuffle_bytes",
             "Map outputs its block server holds on disk.", NULL, NULL, v, 1);
    v[0] = w->shuffle ? (double) shuffle_persisted_bytes (w->shuffle) : 0;
    s_gauge (p, "hearth_worker_persisted_bytes",
             "Of them, persisted stages' (within --cache-disk).", NULL, NULL, v,
             1);
    s_counter (p, "hearth_worker_log_bytes_served_total",
               "Log bytes served by /log and /logpage.",
               (double) w->log_bytes_served);
    hearth_web_prom (p, w->web);
    return hearth_prom_take (&p, len);
}
