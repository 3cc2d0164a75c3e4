/*  apptimeline.c - one application's timeline from its log's figures;
    see apptimeline.h.  The executors and stages are detail.c's, by id
    (the order the timeline wants); times go from ms to µs. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "history/apptimeline.h"
#include "libcore/timeline.h"

/* How late a log's ends may be: a task_end's time is when the driver
   read the executor's update, which batches updates for up to 2 ms,
   written to the ms, plus a loaded host's delays; its start, that time
   less its run_us, is as late.  An attempt that starts this much before
   its core's last one ends follows it on the same lane (tasklog.h). */
static const int64_t s_clock_us = 10000;

static int64_t
s_us (int64_t ms)
{
    return ms >= 0 && ms <= INT64_MAX / 1000 ? ms * 1000 : -1;
}

/* The executors the log named (added, or with attempts). */
static size_t
s_execs (hist_detail_t *d, hearth_tl_exec_t *out)
{
    size_t n, k = 0;
    const hist_exec_t *xs = hist_detail_execs (d, &n);
    for (size_t i = 0; i < n; i++) {
        const hist_exec_t *x = &xs[i];
        if (!x->seen && x->attempts == 0)
            continue;
        out[k++] = (hearth_tl_exec_t){
            .id = (int64_t) i,
            .cores = x->cores,
            .added_us = x->seen ? s_us (x->added_ms) : -1,
            .removed_us = x->seen ? s_us (x->removed_ms) : -1,
            .host = x->host,
            .reason = x->reason,
        };
    }
    return k;
}

static size_t
s_stages (hist_detail_t *d, hearth_tl_stage_t *out)
{
    size_t n, k = 0;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    for (size_t i = 0; i < n; i++)
        if (st[i].seen)
            out[k++] = (hearth_tl_stage_t){
                .id = (int64_t) i,
                .name = st[i].name,
                .start_us = s_us (st[i].start_ms),
                .end_us = s_us (st[i].end_ms),
                .state = st[i].state,
            };
    return k;
}

char *
hist_apptimeline (hist_detail_t *d, int64_t end_ms)
{
    hist_tasklog_t *log = hist_detail_tasklog (d);
    size_t nx, ns, ntasks, cut;
    if (!log)
        return NULL;
    const hearth_tl_task_t *tasks = hist_tasklog_tasks (log, &ntasks, &cut);
    hist_detail_execs (d, &nx);
    hist_detail_stages (d, &ns);
    hearth_tl_exec_t *execs = calloc (nx ? nx : 1, sizeof *execs);
    hearth_tl_stage_t *stages = calloc (ns ? ns : 1, sizeof *stages);
    char *svg = NULL;
    size_t len = 0;
    FILE *out = tasks && execs && stages ? open_memstream (&svg, &len) : NULL;
    if (out) {
        hearth_tl_t tl = {
            .tasks = tasks,
            .ntasks = ntasks,
            .cut = cut,
            .execs = execs,
            .nexecs = s_execs (d, execs),
            .stages = stages,
            .nstages = s_stages (d, stages),
            .origin_us = s_us (hist_detail_app (d)->start_ms),
            .end_us = s_us (end_ms),
            .slack_us = s_clock_us,
        };
        bool failed = hearth_timeline_svg (&tl, out) < 0 || ferror (out);
        if (fclose (out) != 0 || failed) {
            free (svg);
            svg = NULL;
        }
    }
    free (execs);
    free (stages);
    return svg;
}
