/*  test_launch.c - what becomes of a LAUNCH_TASKS that an executor
    refused or that the driver could not send (libhearth/launch.c), on the
    driver's real work and task set, the sockets played by the test: a
    batch not sent for the way's fault is LOST (run again, not counted
    against max-failures), one the codec refused FAILED; a batch not sent
    still ends when the executor says it handled a later one; a refused
    batch named FAILED; an ERROR that names none fails only the batch the
    executor read after those it handled, never one it may be running,
    and tells the executor set when it cannot tell which.  Each job runs
    with max-failures 1: a failure counted fails it.
*/
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/packed.h"
#include "libcore/partfmt.h"
#include "libhearth/inlineout.h"
#include "libhearth/internal.h"
#include "libhearth/launch.h"
#include "libhearth/shuffle.h"
#include "libhearth/work.h"
#include "tests/unit/testutil.h"

/* The executor of every test, and its cores. */
enum { s_exec = 3, s_cores = 2, s_max_jobs = 4 };

/* A driver's insides around one executor. */
typedef struct {
    hearth_opts_t *opts;            /* max-failures 1 */
    hearth_ctx_t ctx;               /* jobs' owner (conf and list) */
    work_t *work;                   /* stages, task set */
    launch_t *launch;               /* the module tested */
    hearth_job_t *jobs[s_max_jobs]; /* submitted */
    size_t njobs;                   /* entries of jobs */
    uint64_t batches[64];           /* numbers handed to s_send */
    size_t nbatches;                /* entries of batches */
    hearth_msg_t *sent;             /* the last LAUNCH_TASKS, when kept */
    bool keep;                      /* keep it (s_send) */
} s_fix_t;

static void
s_kill (void *arg, int exec_id, uint64_t tid, int attempt)
{
    (void) arg, (void) exec_id, (void) tid, (void) attempt;
}

/* launch_offer's sender: the socket took it. */
static void
s_send (void *arg, int exec_id, hearth_msg_t **msg_p, uint64_t batch)
{
    s_fix_t *f = arg;
    assert_int_equal (exec_id, s_exec);
    assert_true (f->nbatches < 64);
    f->batches[f->nbatches++] = batch;
    if (f->keep) {
        hearth_msg_destroy (&f->sent);
        f->sent = *msg_p;
        *msg_p = NULL;
    }
    hearth_msg_destroy (msg_p);
}

static int
s_setup (void **state)
{
    hearth_test_clear_env ();
    s_fix_t *f = calloc (1, sizeof *f);
    char err[256];
    assert_non_null (f);
    assert_non_null (f->opts = hearth_opts_new (err, sizeof err));
    assert_int_equal (
        hearth_opts_set (f->opts, "max-failures", "1", err, sizeof err), 0);
    assert_non_null (f->ctx.conf = driver_conf_copy (f->opts, err, sizeof err));
    assert_non_null (f->ctx.jobs = zlistx_new ());
    work_cbs_t cbs = {.kill = s_kill, .arg = f};
    assert_non_null (f->work = work_new (f->ctx.conf, &cbs));
    assert_int_equal (
        hearth_taskset_add_executor (work_taskset (f->work), s_exec, s_cores),
        0);
    assert_non_null (f->launch = launch_new (f->work));
    *state = f;
    return 0;
}

static int
s_teardown (void **state)
{
    s_fix_t *f = *state;
    work_fail_all (f->work, "the test is over");
    for (size_t i = 0; i < f->njobs; i++) {
        zlistx_delete (f->ctx.jobs, f->jobs[i]->handle);
        job_destroy (&f->jobs[i]);
    }
    hearth_msg_destroy (&f->sent);
    launch_destroy (&f->launch);
    work_destroy (&f->work);
    zlistx_destroy (&f->ctx.jobs);
    hearth_conf_destroy (&f->ctx.conf);
    hearth_opts_destroy (&f->opts);
    free (f);
    return 0;
}

/* Submit a job of n function tasks; its one stage. */
static hearth_stage_t *
s_job (s_fix_t *f, uint64_t n)
{
    assert_true (f->njobs < s_max_jobs);
    hearth_job_t *job = hearth_job_new (&f->ctx, "j");
    hearth_stage_t *st = job ? hearth_job_stage (job, "s") : NULL;
    assert_non_null (st);
    assert_int_equal (hearth_stage_add_functions (st, "noop", "{i}", n), 0);
    job->state = HEARTH_JOB_RUNNING; /* as hearth_job_submit leaves it */
    work_submit (f->work, job);
    f->jobs[f->njobs++] = job;
    return st;
}

/* Offer the executor its free slots: the new batch's number. */
static uint64_t
s_offer (s_fix_t *f)
{
    size_t before = f->nbatches;
    launch_offer (f->launch, s_exec, s_send, f);
    assert_int_equal (f->nbatches, before + 1);
    return f->batches[before];
}

/* The executor's ERROR about a LAUNCH_TASKS: naming batch (0: none),
   with launched (-1: without). */
static launch_error_t
s_refuse (s_fix_t *f, int64_t batch, int64_t launched)
{
    hearth_msg_t *msg =
        hearth_error_new ("bad_field", "cannot decode it", "LAUNCH_TASKS");
    assert_non_null (msg);
    if (batch)
        cJSON_AddNumberToObject (msg->body, "batch", (double) batch);
    if (launched >= 0)
        cJSON_AddNumberToObject (msg->body, "launched", (double) launched);
    launch_error_t what = launch_error (f->launch, s_exec, msg);
    hearth_msg_destroy (&msg);
    work_process (f->work);
    return what;
}

/* The executor's HEARTBEAT saying it handled every batch to launched. */
static void
s_heartbeat (s_fix_t *f, int64_t launched)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_HEARTBEAT);
    assert_non_null (msg);
    cJSON_AddNumberToObject (msg->body, "launched", (double) launched);
    launch_handled (f->launch, s_exec, msg);
    hearth_msg_destroy (&msg);
}

/* The executor's STATUS_UPDATE: task index of st, attempt, FINISHED. */
static void
s_finished (s_fix_t *f, const hearth_stage_t *st, uint64_t index, int attempt)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    assert_non_null (msg);
    cJSON *u = cJSON_CreateObject ();
    cJSON_AddNumberToObject (u, "tid", (double) DRIVER_TID (st->uid, index));
    cJSON_AddNumberToObject (u, "attempt", attempt);
    cJSON_AddStringToObject (u, "state", "FINISHED");
    cJSON_AddItemToArray (cJSON_AddArrayToObject (msg->body, "updates"), u);
    launch_status (f->launch, s_exec, SHUFFLE_NO_SERVER, "127.0.0.1", msg);
    hearth_msg_destroy (&msg);
    work_process (f->work);
}

/* Two jobs of one task each, offered in batches *first and *first + 1:
   the first job's stage. */
static hearth_stage_t *
s_two_batches (s_fix_t *f, uint64_t *first)
{
    hearth_stage_t *st = s_job (f, 1);
    *first = s_offer (f);
    s_job (f, 1);
    assert_int_equal (s_offer (f), *first + 1);
    return st;
}

static size_t
s_inflight (s_fix_t *f)
{
    return hearth_taskset_inflight (work_taskset (f->work));
}

/* A batch not sent for the way's fault (a full queue, an executor not
   connected) is lost, not failed: its tasks run again, and a job
   allowed one failure lives on. */
static void
test_unsent_is_lost (void **state)
{
    s_fix_t *f = *state;
    hearth_stage_t *st = s_job (f, 4);
    uint64_t batch = s_offer (f);
    assert_int_equal (s_inflight (f), 4);
    launch_unsent (
        f->launch, s_exec, batch, true,
        "cannot send LAUNCH_TASKS: Resource temporarily unavailable");
    assert_int_equal (launch_tick (f->launch), 4);
    work_process (f->work);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_RUNNING);
    assert_int_equal (st->failed_attempts, 0);
    assert_int_equal (s_inflight (f), 0);
    assert_int_equal (s_offer (f), batch + 1); /* run again */
    assert_int_equal (s_inflight (f), 4);
    assert_int_equal (launch_tick (f->launch), 0); /* once */
}

/* A batch its own codec refused fails: sent again, it would be again. */
static void
test_unsent_refused_fails (void **state)
{
    s_fix_t *f = *state;
    s_job (f, 2);
    uint64_t batch = s_offer (f);
    launch_unsent (f->launch, s_exec, batch, false,
                   "LAUNCH_TASKS: field 'tasks[0].fn' too long");
    assert_int_equal (launch_tick (f->launch), 2);
    work_process (f->work);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_FAILED);
}

/* A batch not sent still ends when the executor says it handled a later
   one (it never had it): its task runs again, it does not wait for
   ever. */
static void
test_unsent_outlives_ack (void **state)
{
    s_fix_t *f = *state;
    s_job (f, 1);
    uint64_t first = s_offer (f);
    launch_unsent (f->launch, s_exec, first, true, "not connected");
    s_job (f, 1);
    uint64_t second = s_offer (f);
    s_heartbeat (f, (int64_t) second);
    assert_int_equal (launch_tick (f->launch), 1);
    work_process (f->work);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_RUNNING);
    assert_int_equal (s_inflight (f), 1); /* the second job's */
    s_offer (f);
    assert_int_equal (s_inflight (f), 2);
}

/* An ERROR naming the batch fails its tasks (counted). */
static void
test_refused_by_number (void **state)
{
    s_fix_t *f = *state;
    s_job (f, 1);
    uint64_t batch = s_offer (f);
    assert_int_equal (s_refuse (f, (int64_t) batch, 0), LAUNCH_ERROR_HANDLED);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_FAILED);
}

/* An ERROR naming no batch, with the executor's launched: the batch it
   read after those is the one refused; the one it handled runs on, its
   task is not run twice. */
static void
test_refused_unnamed_spares_launched (void **state)
{
    s_fix_t *f = *state;
    uint64_t first;
    hearth_stage_t *st = s_two_batches (f, &first);
    assert_int_equal (s_refuse (f, 0, (int64_t) first), LAUNCH_ERROR_HANDLED);
    assert_int_equal (hearth_job_state (f->jobs[1]), HEARTH_JOB_FAILED);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_RUNNING);
    assert_int_equal (s_inflight (f), 1); /* the first job's attempt 0 */
    s_finished (f, st, 0, 0);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_SUCCEEDED);
}

/* An ERROR naming no batch nor launched (another build's): one batch in
   flight is the one; of several, none is failed, the executor set is
   told (it drops the executor). */
static void
test_refused_unnamed_without_launched (void **state)
{
    s_fix_t *f = *state;
    uint64_t first;
    s_two_batches (f, &first);
    assert_int_equal (s_refuse (f, 0, -1), LAUNCH_ERROR_UNKNOWN);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_RUNNING);
    assert_int_equal (hearth_job_state (f->jobs[1]), HEARTH_JOB_RUNNING);
    assert_int_equal (s_inflight (f), 2);
    s_heartbeat (f, (int64_t) first);
    assert_int_equal (s_refuse (f, 0, -1), LAUNCH_ERROR_HANDLED);
    assert_int_equal (hearth_job_state (f->jobs[1]), HEARTH_JOB_FAILED);
    assert_int_equal (hearth_job_state (f->jobs[0]), HEARTH_JOB_RUNNING);
}

/* An ERROR about another command is not launch.c's. */
static void
test_other_errors (void **state)
{
    s_fix_t *f = *state;
    hearth_msg_t *msg = hearth_error_new ("bad_field", "no", "HEARTBEAT");
    assert_non_null (msg);
    assert_int_equal (launch_error (f->launch, s_exec, msg),
                      LAUNCH_ERROR_OTHER);
    hearth_msg_destroy (&msg);
}

/* A packed FINISHED of task index of m carrying its output (flag
   MAP_BLOCK), output NULL: an empty one. */
static void
s_kept_update (s_fix_t *f, const hearth_stage_t *m, uint64_t index,
               const char *output)
{
    hearth_packer_t pk = {0};
    hearth_packed_update_t u = {.tid = DRIVER_TID (m->uid, index),
                                .attempt = 0,
                                .flags = HEARTH_PACKED_MAP_BLOCK,
                                .result_frame = -1,
                                .result = output,
                                .result_len = output ? strlen (output) : 0};
    for (size_t i = 0; hearth_task_states[i]; i++)
        if (strcmp (hearth_task_states[i], "FINISHED") == 0)
            u.state = (int) i;
    assert_int_equal (hearth_packer_add_update (&pk, &u), 0);
    zframe_t *frame = hearth_packer_frame (&pk);
    hearth_packer_release (&pk);
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_STATUS_UPDATE);
    cJSON_AddArrayToObject (msg->body, "updates");
    cJSON_AddNumberToObject (msg->body, "packed",
                             hearth_msg_add_frame (msg, &frame));
    launch_status (f->launch, s_exec, SHUFFLE_NO_SERVER, "127.0.0.1", msg);
    hearth_msg_destroy (&msg);
    work_process (f->work);
}

/* A stage another reads whole, its outputs kept by the driver: its tasks
   go packed, their map role in "whole_maps"; a packed FINISHED carrying
   the output as the task wrote it (flag MAP_BLOCK, maybe empty)
   registers it as the map output, its newline added; the reader, every
   output kept, gets them as its input. */
static void
test_whole_map_packed (void **state)
{
    s_fix_t *f = *state;
    hearth_job_t *job = hearth_job_new (&f->ctx, "w");
    hearth_stage_t *m = job ? hearth_job_stage (job, "m") : NULL;
    hearth_stage_t *r = job ? hearth_job_stage (job, "r") : NULL;
    assert_non_null (r);
    assert_int_equal (hearth_stage_add_functions (m, "noop", "{i}", 2), 0);
    assert_int_equal (hearth_stage_add_functions (r, "cat", "", 1), 0);
    assert_int_equal (hearth_stage_input (r, m), 0);
    m->read_whole = true; /* as hearth_job_submit marks it */
    job->state = HEARTH_JOB_RUNNING;
    work_submit (f->work, job);
    f->jobs[f->njobs++] = job;
    assert_true (m->inline_max > 0);
    f->keep = true;
    s_offer (f);
    hearth_msg_t *sent = f->sent;
    assert_non_null (sent);
    assert_int_equal (
        cJSON_GetArraySize (cJSON_GetObjectItem (sent->body, "tasks")), 0);
    assert_true (hearth_json_int (sent->body, "packed", -1) >= 0);
    cJSON *w =
        cJSON_GetArrayItem (cJSON_GetObjectItem (sent->body, "whole_maps"), 0);
    assert_int_equal (hearth_json_int (w, "stage", -1), m->uid);
    assert_int_equal (hearth_json_int (w, "inline_max", -1), m->inline_max);
    s_kept_update (f, m, 0, "x");
    assert_non_null (m->maps[0].sizes);
    assert_int_equal (m->maps[0].server, SHUFFLE_KEPT);
    assert_int_equal (m->maps[0].kept_len, 2); /* "x\n" */
    assert_int_equal (m->maps[0].sizes[0], hearth_frames_size (2));
    assert_null (m->maps[1].sizes); /* not finished yet */
    s_kept_update (f, m, 1, NULL);
    assert_int_equal (m->maps[1].server, SHUFFLE_KEPT);
    assert_int_equal (m->maps[1].kept_len, 1); /* an empty line */
    bool failed;
    zframe_t *input = inlineout_input (m, &failed);
    assert_non_null (input);
    assert_int_equal (zframe_size (input), 3);
    assert_memory_equal (zframe_data (input), "x\n\n", 3);
}

/* A packed FINISHED claiming a kept output (flag MAP_BLOCK) for a stage
   that keeps none is a failure of the attempt, never a result (it was
   taken as FINISHED with an empty result). */
static void
test_kept_for_plain_stage (void **state)
{
    s_fix_t *f = *state;
    hearth_job_t *job = hearth_job_new (&f->ctx, "p");
    hearth_stage_t *p = job ? hearth_job_stage (job, "p") : NULL;
    assert_non_null (p);
    assert_int_equal (hearth_stage_add_functions (p, "noop", "{i}", 1), 0);
    job->state = HEARTH_JOB_RUNNING;
    work_submit (f->work, job);
    f->jobs[f->njobs++] = job;
    assert_int_equal (p->inline_max, 0);
    s_offer (f);
    s_kept_update (f, p, 0, "x");
    assert_int_equal (p->failed_attempts, 1);
    /* (the fixture's max-failures is 1) */
    assert_int_equal (hearth_job_state (job), HEARTH_JOB_FAILED);
    assert_non_null (strstr (hearth_job_error (job), "keeps none"));
}

int
main (void)
{
#define T(name) cmocka_unit_test_setup_teardown (name, s_setup, s_teardown)
    const struct CMUnitTest tests[] = {
        T (test_unsent_is_lost),
        T (test_unsent_refused_fails),
        T (test_unsent_outlives_ack),
        T (test_refused_by_number),
        T (test_refused_unnamed_spares_launched),
        T (test_refused_unnamed_without_launched),
        T (test_other_errors),
        T (test_whole_map_packed),
        T (test_kept_for_plain_stage),
    };
#undef T
    return cmocka_run_group_tests (tests, NULL, NULL);
}
