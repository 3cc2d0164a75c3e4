/*  progress_report.c - the driver's progress summary for the master; see
    progress_report.h.  A summary is a fixed-size struct, zeroed before it
    is filled, so that "changed since the last one sent" is one memcmp. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "libhearth/progress_report.h"

/* One active stage, as APPLICATION_PROGRESS's `stages` lists it. */
typedef struct {
    uint64_t job;                            /* its job's id */
    uint32_t stage;                          /* its uid */
    char name[HEARTH_PROGRESS_NAME_MAX + 1]; /* cut to fit */
    uint64_t tasks;                          /* its tasks */
    uint64_t finished;                       /* of them finished */
    uint64_t running;                        /* attempts running */
    uint64_t failed;                         /* failed attempts */
} s_stage_t;

/* A whole summary. */
typedef struct {
    uint64_t jobs_ended;  /* jobs ended so far (not sent: it makes one due) */
    uint64_t jobs_active; /* jobs running */
    uint64_t tasks_total; /* every job's tasks, ended or running */
    uint64_t tasks_finished; /* of them finished */
    uint64_t tasks_failed;   /* failed attempts, every job's */
    uint64_t tasks_running;  /* attempts running now */
    uint64_t placed[3];      /* attempts launched NODE_LOCAL, RACK_LOCAL, ANY,
                                every job's (work_totals_t) */
    size_t nstages;          /* entries of stages */
    s_stage_t stages[HEARTH_PROGRESS_STAGES];  /* the oldest active ones */
    size_t nwaiting;                           /* entries of waiting */
    s_stage_t waiting[HEARTH_PROGRESS_STAGES]; /* the first stages of the
                                                  running jobs that wait
                                                  for their parents */
    size_t ndone;                              /* entries of done */
    s_stage_t done[HEARTH_PROGRESS_STAGES];    /* the last completed
                                                  stages of the running
                                                  jobs, oldest first */
} s_summary_t;

struct progress_report {
    int64_t interval_ms; /* at most one summary per interval */
    int64_t sent_ms;     /* when the last one went (monotonic), or 0 */
    bool sent_any;       /* one has been sent */
    s_summary_t last;    /* the last one sent */
    s_summary_t cur;     /* the one progress_report_due found due */
};

progress_report_t *
progress_report_new (int64_t interval_ms)
{
    progress_report_t *self = calloc (1, sizeof *self);
    if (self)
        self->interval_ms = interval_ms;
    return self;
}

void
progress_report_destroy (progress_report_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    free (*self_p);
    *self_p = NULL;
    errno = saved;
}

void
progress_report_cut (char *buf, const char *name, size_t max)
{
    size_t len = strlen (name);
    if (len > max) {
        len = max;
        /* back off continuation bytes to the start of the cut character */
        while (len > 0 && ((unsigned char) name[len] & 0xc0) == 0x80)
            len--;
    }
    memcpy (buf, name, len);
    buf[len] = '\0';
}

/* Whether every parent of st has finished all its tasks. */
static bool
s_parents_done (hearth_taskset_t *ts, const hearth_stage_t *st)
{
    for (size_t k = 0; k < st->nparents; k++) {
        uint64_t finished, running, total;
        if (hearth_taskset_stage_counts (ts, st->parents[k]->uid, &finished,
                                         &running, &total)
                < 0
            || finished < total)
            return false;
    }
    return true;
}

/* The line of st, into the next entry of list (n used, at most
   HEARTH_PROGRESS_STAGES): NULL when full, unless shift, when the
   oldest entry makes room (the last ones are kept). */
static s_stage_t *
s_entry (s_stage_t *list, size_t *n, bool shift)
{
    if (*n < HEARTH_PROGRESS_STAGES)
        return &list[(*n)++];
    if (!shift)
        return NULL;
    memmove (list, list + 1, (HEARTH_PROGRESS_STAGES - 1) * sizeof *list);
    return &list[HEARTH_PROGRESS_STAGES - 1];
}

/* Add st of a running job to the summary: its counts always, its line
   where it belongs when there is room: active (runnable or running, not
   complete), waiting for its parents, or completed. */
static void
s_add_stage (s_summary_t *sum, hearth_taskset_t *ts, const hearth_stage_t *st)
{
    uint64_t finished, running, total;
    if (hearth_taskset_stage_counts (ts, st->uid, &finished, &running, &total)
        < 0)
        return;
    sum->tasks_total += total;
    sum->tasks_finished += finished;
    sum->tasks_failed += st->failed_attempts;
    sum->tasks_running += running;
    for (size_t l = 0; l < 3; l++)
        sum->placed[l] += __atomic_load_n (&st->placed[l], __ATOMIC_RELAXED);
    s_stage_t *s;
    if (finished >= total)
        s = s_entry (sum->done, &sum->ndone, true);
    else if (!running && !s_parents_done (ts, st))
        s = s_entry (sum->waiting, &sum->nwaiting, false);
    else
        s = s_entry (sum->stages, &sum->nstages, false);
    if (!s)
        return;
    memset (s, 0, sizeof *s); /* a summary is compared whole (memcmp) */
    s->job = st->job->id;
    s->stage = st->uid;
    progress_report_cut (s->name, st->name, HEARTH_PROGRESS_NAME_MAX);
    s->tasks = total;
    s->finished = finished;
    s->running = running;
    s->failed = st->failed_attempts;
}

static void
s_summarize (s_summary_t *sum, work_t *work)
{
    memset (sum, 0, sizeof *sum);
    const work_totals_t *ended = work_ended_totals (work);
    sum->jobs_ended = ended->jobs;
    sum->tasks_total = ended->tasks;
    sum->tasks_finished = ended->finished;
    sum->tasks_failed = ended->failed;
    memcpy (sum->placed, ended->placed, sizeof sum->placed);
    hearth_taskset_t *ts = work_taskset (work);
    for (hearth_job_t *job = work_first_job (work); job;
         job = work_next_job (work)) {
        sum->jobs_active++;
        for (size_t i = 0; i < job->nstages; i++)
            s_add_stage (sum, ts, job->stages[i]);
    }
}

bool
progress_report_due (progress_report_t *self, work_t *work, int64_t now_ms,
                     bool final, bool news)
{
    bool job_ended = self->sent_any
                     && work_ended_totals (work)->jobs != self->last.jobs_ended;
    if (!final && !job_ended && self->sent_any
        && now_ms - self->sent_ms < self->interval_ms)
        return false; /* the common case: one comparison per tick */
    s_summarize (&self->cur, work);
    return !self->sent_any || news
           || memcmp (&self->cur, &self->last, sizeof self->cur) != 0;
}

void
progress_report_sent (progress_report_t *self, int64_t now_ms)
{
    self->last = self->cur;
    self->sent_ms = now_ms;
    self->sent_any = true;
}

static cJSON *
s_stage_json (const s_stage_t *s)
{
    cJSON *o = cJSON_CreateObject ();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject (o, "job", (double) s->job);
    cJSON_AddNumberToObject (o, "stage", s->stage);
    cJSON_AddStringToObject (o, "name", s->name);
    cJSON_AddNumberToObject (o, "tasks", (double) s->tasks);
    cJSON_AddNumberToObject (o, "finished", (double) s->finished);
    cJSON_AddNumberToObject (o, "running", (double) s->running);
    cJSON_AddNumberToObject (o, "failed", (double) s->failed);
    return o;
}

/* The n stage lines of list as the array name of b: always, or only
   when there are any (waiting and completed: a driver of an older
   version sends neither).  -1 on no memory. */
static int
s_add_list (cJSON *b, const char *name, const s_stage_t *list, size_t n,
            bool always)
{
    if (n == 0 && !always)
        return 0;
    cJSON *array = cJSON_AddArrayToObject (b, name);
    for (size_t i = 0; array && i < n; i++)
        cJSON_AddItemToArray (array, s_stage_json (&list[i]));
    return array ? 0 : -1;
}

/* The attempts launched at each level, once any was (an application
   without preferences sends what it always did). */
static void
s_add_locality (cJSON *b, const uint64_t placed[3])
{
    if (!placed[0] && !placed[1] && !placed[2])
        return;
    cJSON *o = cJSON_AddObjectToObject (b, "locality");
    cJSON_AddNumberToObject (o, "node_local", (double) placed[0]);
    cJSON_AddNumberToObject (o, "rack_local", (double) placed[1]);
    cJSON_AddNumberToObject (o, "any", (double) placed[2]);
}

hearth_msg_t *
progress_report_msg (const progress_report_t *self, const char *app_id)
{
    const s_summary_t *sum = &self->cur;
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_APPLICATION_PROGRESS);
    if (!msg)
        return NULL;
    cJSON *b = msg->body;
    cJSON_AddStringToObject (b, "app_id", app_id);
    cJSON_AddNumberToObject (b, "jobs_active", (double) sum->jobs_active);
    cJSON_AddNumberToObject (b, "tasks_total", (double) sum->tasks_total);
    cJSON_AddNumberToObject (b, "tasks_finished", (double) sum->tasks_finished);
    cJSON_AddNumberToObject (b, "tasks_failed", (double) sum->tasks_failed);
    cJSON_AddNumberToObject (b, "tasks_running", (double) sum->tasks_running);
    if (s_add_list (b, "stages", sum->stages, sum->nstages, true) < 0) {
        hearth_msg_destroy (&msg);
        return NULL;
    }
    s_add_list (b, "waiting", sum->waiting, sum->nwaiting, false);
    s_add_list (b, "completed", sum->done, sum->ndone, false);
    s_add_locality (b, sum->placed);
    return msg;
}
