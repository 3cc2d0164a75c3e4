/*  webmetrics.c - the master's /metrics text (Prometheus); see web.h.
    Gauges are read from the registry when scraped; counters and
    histograms are counted as things happen (master_t's metrics: main.c
    counts heartbeats, refusals, executor ends and times the allocation
    passes; recover.c times the journal's writes).  No label names a
    task, an executor or an application: states and reasons only. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/prom.h"
#include "libcore/proto.h"
#include "libcore/refusals.h"
#include "libcore/units.h"
#include "libcore/web.h"
#include "libcore/webprom.h"
#include "master/state.h"
#include "master/web.h"

/* Workers by state; cores and memory of the ALIVE ones, used and free. */
static void
s_workers (hearth_prom_t *p, master_t *m)
{
    double by_state[3] = {0}, cores[2] = {0}, mem[2] = {0};
    zlistx_t *workers = registry_workers (m->reg);
    for (reg_worker_t *w = zlistx_first (workers); w;
         w = zlistx_next (workers)) {
        by_state[w->state]++;
        if (w->state != WORKER_ALIVE)
            continue;
        int used = registry_worker_cores_used (w);
        int64_t mem_used = registry_worker_memory_used (w);
        cores[0] += used;
        cores[1] += w->cores > used ? w->cores - used : 0;
        mem[0] += (double) mem_used * HEARTH_MiB;
        mem[1] += w->memory_mb > mem_used
                      ? (double) (w->memory_mb - mem_used) * HEARTH_MiB
                      : 0;
    }
    hearth_prom_family (p, "hearth_workers", "gauge", "Workers by state.");
    for (int i = 0; i < 3; i++)
        hearth_prom_sample (p, "hearth_workers", "state",
                            hearth_worker_states[i], by_state[i]);
    hearth_prom_family (p, "hearth_cores", "gauge",
                        "Cores of the ALIVE workers, used and free.");
    hearth_prom_sample (p, "hearth_cores", "state", "used", cores[0]);
    hearth_prom_sample (p, "hearth_cores", "state", "free", cores[1]);
    hearth_prom_family (p, "hearth_memory_bytes", "gauge",
                        "Memory of the ALIVE workers, used and free.");
    hearth_prom_sample (p, "hearth_memory_bytes", "state", "used", mem[0]);
    hearth_prom_sample (p, "hearth_memory_bytes", "state", "free", mem[1]);
}

static void
s_count_apps (zlistx_t *apps, double *by_state, double *execs)
{
    for (reg_app_t *a = zlistx_first (apps); a; a = zlistx_next (apps)) {
        by_state[a->state]++;
        for (reg_exec_t *e = zhashx_first (a->executors); e;
             e = zhashx_next (a->executors))
            execs[e->state]++;
    }
}

/* Applications (active and the completed ones kept) and their
   executors, by state. */
static void
s_apps (hearth_prom_t *p, master_t *m)
{
    double apps[8] = {0}, execs[8] = {0};
    s_count_apps (registry_apps (m->reg), apps, execs);
    s_count_apps (registry_completed (m->reg), apps, execs);
    hearth_prom_family (p, "hearth_applications", "gauge",
                        "Applications by state (completed ones as long as "
                        "the master keeps them: --retained-apps).");
    for (int i = 0; hearth_app_states[i]; i++)
        hearth_prom_sample (p, "hearth_applications", "state",
                            hearth_app_states[i], apps[i]);
    hearth_prom_family (p, "hearth_executors", "gauge",
                        "Executors of those applications by state.");
    for (int i = 0; hearth_executor_states[i]; i++)
        hearth_prom_sample (p, "hearth_executors", "state",
                            hearth_executor_states[i], execs[i]);
    double kept = 0;
    zlistx_t *running = registry_apps (m->reg);
    for (reg_app_t *a = zlistx_first (running); a; a = zlistx_next (running))
        kept += (double) hearth_json_int (
            cJSON_GetObjectItemCaseSensitive (a->progress, "persisted"),
            "memory_bytes", 0);
    hearth_prom_family (p, "hearth_persisted_memory_bytes", "gauge",
                        "Bytes of persisted stages' inputs the running "
                        "applications' executors keep in memory, from the "
                        "drivers' progress summaries.");
    hearth_prom_sample (p, "hearth_persisted_memory_bytes", NULL, NULL, kept);
}

static void
s_seen_destroy (void **item)
{
    free (*item);
    *item = NULL;
}

/* Add what one application's progress counts beyond the last scrape,
   and remember its counts in now. */
static void
s_app_tasks (master_metrics_t *c, zhashx_t *now, const reg_app_t *a)
{
    if (!a->progress)
        return;
    const cJSON *loc =
        cJSON_GetObjectItemCaseSensitive (a->progress, "locality");
    int64_t cur[MASTER_COUNTS] = {
        [MASTER_COUNT_FINISHED] =
            hearth_json_int (a->progress, "tasks_finished", 0),
        [MASTER_COUNT_FAILED] =
            hearth_json_int (a->progress, "tasks_failed", 0),
        [MASTER_COUNT_NODE_LOCAL] = hearth_json_int (loc, "node_local", 0),
        [MASTER_COUNT_RACK_LOCAL] = hearth_json_int (loc, "rack_local", 0),
        [MASTER_COUNT_ANY] = hearth_json_int (loc, "any", 0)};
    const int64_t *last =
        c->tasks_seen ? zhashx_lookup (c->tasks_seen, a->id) : NULL;
    int64_t *seen = malloc (MASTER_COUNTS * sizeof *seen);
    for (int i = 0; i < MASTER_COUNTS; i++) {
        int64_t before = last ? last[i] : 0;
        if (cur[i] > before)
            c->counts[i] += (uint64_t) (cur[i] - before);
        if (seen)
            seen[i] = cur[i] > before ? cur[i] : before;
    }
    if (seen)
        zhashx_update (now, a->id, seen);
}

/* Tasks finished and failed as counters, from the drivers' progress
   summaries (each application's counts only grow: what grew since the
   last scrape is added).  An application the master forgot between two
   scrapes (past --retained-apps) loses what it did since the first. */
static void
s_tasks (hearth_prom_t *p, master_t *m)
{
    master_metrics_t *c = &m->metrics;
    zhashx_t *now = zhashx_new ();
    if (now) {
        zhashx_set_destructor (now, s_seen_destroy);
        zlistx_t *lists[2] = {registry_apps (m->reg),
                              registry_completed (m->reg)};
        for (int i = 0; i < 2; i++)
            for (reg_app_t *a = zlistx_first (lists[i]); a;
                 a = zlistx_next (lists[i]))
                s_app_tasks (c, now, a);
        zhashx_destroy (&c->tasks_seen);
        c->tasks_seen = now;
    }
    hearth_prom_family (p, "hearth_tasks_finished_total", "counter",
                        "Tasks finished, from the drivers' progress "
                        "summaries.");
    hearth_prom_sample (p, "hearth_tasks_finished_total", NULL, NULL,
                        (double) c->counts[MASTER_COUNT_FINISHED]);
    hearth_prom_family (p, "hearth_tasks_failed_total", "counter",
                        "Task attempts failed, likewise.");
    hearth_prom_sample (p, "hearth_tasks_failed_total", NULL, NULL,
                        (double) c->counts[MASTER_COUNT_FAILED]);
    hearth_prom_family (p, "hearth_task_locality_total", "counter",
                        "Task attempts launched where their data is "
                        "preferred, by locality level (attempts of tasks "
                        "without a preference are not counted), likewise.");
    static const char *const levels[] = {"node_local", "rack_local", "any"};
    for (int i = 0; i < 3; i++)
        hearth_prom_sample (p, "hearth_task_locality_total", "level", levels[i],
                            (double) c->counts[MASTER_COUNT_NODE_LOCAL + i]);
}

static void
s_counters (hearth_prom_t *p, master_t *m)
{
    const master_metrics_t *c = &m->metrics;
    hearth_prom_family (p, "hearth_executor_exits_total", "counter",
                        "Executors ended, by how (their final state).");
    for (int i = 2; hearth_executor_states[i]; i++) /* the final ones */
        hearth_prom_sample (p, "hearth_executor_exits_total", "reason",
                            hearth_executor_states[i],
                            (double) c->exec_exits[i]);
    hearth_prom_family (p, "hearth_heartbeats_received_total", "counter",
                        "HEARTBEAT messages received from workers and "
                        "drivers.");
    hearth_prom_sample (p, "hearth_heartbeats_received_total", NULL, NULL,
                        (double) c->heartbeats);
    hearth_prom_family (p, "hearth_messages_refused_total", "counter",
                        "Messages refused, by why: malformed (the codec), "
                        "unadmitted (a key no longer allowed), denied (a "
                        "role or owner rule).");
    hearth_prom_sample (p, "hearth_messages_refused_total", "reason",
                        "malformed", (double) c->refused_malformed);
    hearth_prom_sample (p, "hearth_messages_refused_total", "reason",
                        "unadmitted", (double) c->refused_unadmitted);
    hearth_prom_sample (p, "hearth_messages_refused_total", "reason", "denied",
                        (double) hearth_refusals_count (m->denials));
    hearth_prom_histogram (p, "hearth_scheduling_pass_seconds",
                           "Time of each allocation pass.", &c->schedule);
    hearth_prom_histogram (p, "hearth_journal_write_seconds",
                           "Time of each journal append or sync "
                           "(--journal).",
                           &c->journal);
}

static void
s_web (hearth_prom_t *p, master_t *m)
{
    hearth_prom_family (p, "hearth_master_up", "gauge",
                        "1; the master's status as a label.");
    hearth_prom_sample (p, "hearth_master_up", "status", master_status (m), 1);
    hearth_web_prom (p, m->web);
}

char *
master_web_metrics (master_t *m, size_t *len)
{
    hearth_prom_t *p = hearth_prom_new ();
    if (!p)
        return NULL;
    s_web (p, m);
    s_workers (p, m);
    s_apps (p, m);
    s_counters (p, m);
    s_tasks (p, m);
    return hearth_prom_take (&p, len);
}
