/*  test_restore.c - the registry and its journal: every change a registry
    makes reaches the journal hook as a record, a replay of those records
    (jstate.c) rebuilds the same books in a new registry (restore.c), a
    snapshot (registry_dump) rebuilds them too, and records that make no
    sense are skipped, never trusted; a worker's id keeps the key it
    registered with.  Also the books of cores after an
    application ends: its executors' cores stay counted on their worker
    until the worker reports them ended (regstopping.c). */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/proto.h"
#include "master/jstate.h"
#include "master/regdrivers.h"
#include "master/registry.h"
#include "master/regworkers.h"
#include "tests/unit/testutil.h"

#define W1 "worker-20240101000000-host1-1"
#define W2 "worker-20240101000000-host2-2"
/* The public key made for a driver's launch (Z85, 40 characters). */
#define S_KEY "rq:rM>}U?@Lns47E1%kR.o@n%FcmmsL/@{H8]yf7"
/* The workers' keys, and a key another worker speaks with. */
#define K1 "E(i7uXrv&fOgQ!Ka9[mv{S$Wh2r?0y}$v3m0Vyb("
#define K2 "Yne@$w-vo<fVvi]a<NY6T1ed:M$fCG*[IaLV{hID"
#define K3 "b#HBj-p3.NO=@Zj+2nr4fxqbv9%@sEbPx@^3&qYx"

/* The journal hook: apply every record to a jstate, as a replay would. */
static void
s_to_jstate (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    assert_true (jstate_apply (arg, record) >= 0);
}

static zframe_t *
s_rid (const char *text)
{
    return zframe_new (text, strlen (text));
}

/* Worker id registered from host with CURVE key (NULL: none). */
static reg_worker_t *
s_worker_key (registry_t *reg, const char *id, const char *host,
              const char *key)
{
    zframe_t *rid = s_rid (id);
    char dir_id[64];
    snprintf (dir_id, sizeof dir_id, "boot-1:fd00:%s", host);
    registry_worker_desc_t desc = {id,   host, "0.1.0", "/work", 8,
                                   8192, rid,  dir_id,  NULL,    key};
    reg_worker_t *w = registry_worker_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (w);
    return w;
}

static reg_worker_t *
s_worker (registry_t *reg, const char *id, const char *host)
{
    return s_worker_key (reg, id, host, NULL);
}

static reg_app_t *
s_app (registry_t *reg, const char *name)
{
    zframe_t *rid = s_rid (name);
    cJSON *conf = cJSON_Parse ("{\"speculation\":\"true\"}");
    cJSON *labels = cJSON_Parse ("{\"disk\":\"ssd\"}");
    registry_app_desc_t desc = {.name = name,
                                .executor_labels = labels,
                                .driver_url = "tcp://127.0.0.1:5000",
                                .token = "t0k3n",
                                .conf = conf,
                                .max_cores = 6,
                                .cores_per_executor = 2,
                                .memory_per_executor_mb = 512,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    cJSON_Delete (conf);
    cJSON_Delete (labels);
    assert_non_null (app);
    return app;
}

static reg_driver_t *
s_driver (registry_t *reg, const char *app, const char *bytes)
{
    zframe_t *frame = zframe_new (bytes, strlen (bytes));
    cJSON *spec = cJSON_Parse ("{\"args\":[\"x\"],\"files\":[{\"name\":\"j\","
                               "\"frame\":0}]}");
    registry_driver_desc_t desc = {.name = app,
                                   .app = "j",
                                   .spec = spec,
                                   .frames = &frame,
                                   .nframes = 1,
                                   .cores = 1,
                                   .memory_mb = 256,
                                   .supervise = true};
    reg_driver_t *d = registry_driver_submit (reg, &desc);
    zframe_destroy (&frame);
    cJSON_Delete (spec);
    assert_non_null (d);
    return d;
}

/* Books that hold one of everything. */
typedef struct {
    registry_t *reg;
    jstate_t *journal;
    char app1[HEARTH_ID_MAX + 1], app2[HEARTH_ID_MAX + 1];
    char d_run[HEARTH_ID_MAX + 1], d_wait[HEARTH_ID_MAX + 1];
    char d_done[HEARTH_ID_MAX + 1];
    int pid_exec, pid_driver;
} s_books_t;

static void
s_fill (s_books_t *b)
{
    b->reg = registry_new (10, 1000);
    b->journal = jstate_new ();
    registry_set_journal (b->reg, s_to_jstate, b->journal);
    reg_worker_t *w1 = s_worker_key (b->reg, W1, "host1", K1);
    reg_worker_t *w2 = s_worker_key (b->reg, W2, "host2", K2);
    reg_app_t *a1 = s_app (b->reg, "one");
    snprintf (b->app1, sizeof b->app1, "%s", a1->id);
    /* dynamic allocation's target, journaled with the app */
    assert_int_equal (a1->executor_target, -1);
    assert_int_equal (registry_app_set_target (b->reg, a1, 4), 1);
    assert_int_equal (registry_app_set_target (b->reg, a1, 4), 0);
    reg_exec_t *e0 = registry_exec_add (b->reg, a1, w1, 2, 512);
    reg_exec_t *e1 = registry_exec_add (b->reg, a1, w1, 2, 512);
    reg_exec_t *e2 = registry_exec_add (b->reg, a1, w2, 2, 512);
    b->pid_exec = 4242;
    registry_exec_report_t running = {
        .state = EXEC_RUNNING, .exit_status = -1, .pid = b->pid_exec};
    registry_exec_report (b->reg, e0, &running);
    registry_exec_set_state (b->reg, e1, EXEC_FAILED, "boom", 3, false);
    (void) e2;
    /* w1 drained (journaled with its reason); w2 drained, then resumed */
    assert_int_equal (registry_worker_drain (b->reg, w1, true, "disk swap"), 1);
    assert_int_equal (registry_worker_drain (b->reg, w1, true, "again"), 0);
    assert_int_equal (registry_worker_drain (b->reg, w2, true, NULL), 1);
    assert_int_equal (registry_worker_drain (b->reg, w2, false, NULL), 1);
    registry_worker_dead (b->reg, w2, "silent", 5);
    reg_app_t *a2 = s_app (b->reg, "two");
    snprintf (b->app2, sizeof b->app2, "%s", a2->id);
    registry_app_end (b->reg, a2, APP_KILLED, "killed by request", NULL, NULL);

    reg_driver_t *d = s_driver (b->reg, "run", "bytes of run");
    snprintf (b->d_run, sizeof b->d_run, "%s", d->id);
    registry_driver_launch (b->reg, d, w1, 0, S_KEY);
    registry_driver_update_t u = {
        .state = DRIVER_RUNNING, .exit_status = -1, .pid = b->pid_driver = 777};
    registry_driver_set_state (b->reg, d, &u);
    registry_driver_set_app (b->reg, d, b->app1);
    d = s_driver (b->reg, "wait", "bytes of wait");
    snprintf (b->d_wait, sizeof b->d_wait, "%s", d->id);
    d = s_driver (b->reg, "done", "bytes of done");
    snprintf (b->d_done, sizeof b->d_done, "%s", d->id);
    registry_driver_launch (b->reg, d, w1, 0, NULL);
    u = (registry_driver_update_t){
        .state = DRIVER_FINISHED, .exit_status = 0, .pid = 0};
    registry_driver_set_state (b->reg, d, &u);
}

static void
s_empty (s_books_t *b)
{
    registry_destroy (&b->reg);
    jstate_destroy (&b->journal);
}

/* The files callback: the bytes the test's drivers were given. */
static zframe_t **
s_files (void *arg, const char *driver_id, size_t n)
{
    s_books_t *b = arg;
    assert_int_equal (n, 1);
    reg_driver_t *d = registry_driver (b->reg, driver_id);
    if (!d || d->nframes != 1)
        return NULL;
    zframe_t **frames = calloc (1, sizeof *frames);
    frames[0] = zframe_dup (d->frames[0]);
    return frames;
}

static zframe_t **
s_no_files (void *arg, const char *driver_id, size_t n)
{
    (void) arg;
    (void) driver_id;
    (void) n;
    return NULL;
}

/* What the restored registry must hold. */
static void
s_check_restored (s_books_t *b, registry_t *r)
{
    reg_worker_t *w1 = registry_worker (r, W1);
    reg_worker_t *w2 = registry_worker (r, W2);
    assert_non_null (w1);
    assert_non_null (w2);
    assert_int_equal (w1->state, WORKER_UNKNOWN);
    assert_int_equal (w2->state, WORKER_DEAD);
    assert_string_equal (w1->host, "host1");
    /* what tells its work dir apart, for a worker restarted there while
       the master was down (issue 14, defect 5) */
    assert_non_null (w1->work_dir_id);
    assert_string_equal (w1->work_dir_id, "boot-1:fd00:host1");
    /* the key each id belongs to: after a restart, only that key
       registers under it (docs/security.md, "Worker ids and keys") */
    assert_string_equal (w1->curve_key, K1);
    assert_string_equal (w2->curve_key, K2);
    assert_int_equal (w1->cores, 8);
    assert_null (w1->routing_id);
    assert_true (w1->draining);
    assert_string_equal (w1->drain_reason, "disk swap");
    assert_false (w2->draining);
    assert_null (w2->drain_reason);
    /* exec 0 (2 cores, 512) and the running driver (1 core, 256) */
    assert_int_equal (w1->cores_used, 3);
    assert_int_equal (w1->memory_used_mb, 768);

    reg_app_t *a1 = registry_app (r, b->app1);
    assert_non_null (a1);
    assert_int_equal (a1->state, APP_RUNNING);
    assert_true (a1->recovering);
    assert_string_equal (a1->token, "t0k3n");
    assert_string_equal (hearth_json_str (a1->conf, "speculation"), "true");
    assert_int_equal (a1->max_cores, 6);
    assert_int_equal (a1->cores_per_executor, 2);
    assert_int_equal (a1->executor_target, 4);
    assert_string_equal (hearth_json_str (a1->executor_labels, "disk"), "ssd");
    assert_int_equal (a1->next_exec_id, 3); /* never reuse 0..2 */
    assert_int_equal (zhashx_size (a1->executors), 1);
    reg_exec_t *e0 = registry_exec (r, b->app1, 0);
    assert_non_null (e0);
    assert_int_equal (e0->state, EXEC_RUNNING);
    assert_int_equal (e0->pid, b->pid_exec);
    assert_ptr_equal (e0->worker, w1);
    assert_null (registry_exec (r, b->app1, 2)); /* LOST with w2 */

    reg_app_t *a2 = registry_app (r, b->app2);
    assert_non_null (a2);
    assert_int_equal (a2->state, APP_KILLED);
    assert_int_equal (a2->executor_target, -1); /* none asked */
    assert_string_equal (a2->end_reason, "killed by request");
    assert_int_equal (zlistx_size (registry_apps (r)), 1);
    assert_int_equal (zlistx_size (registry_completed (r)), 1);

    reg_driver_t *d = registry_driver (r, b->d_run);
    assert_non_null (d);
    assert_int_equal (d->state, DRIVER_RUNNING);
    assert_ptr_equal (d->worker, w1);
    assert_int_equal (d->launches, 1);
    /* its launch's key, which the restarted master admits again */
    assert_string_equal (d->key, S_KEY);
    assert_int_equal (d->pid, b->pid_driver);
    assert_string_equal (d->app_id, b->app1);
    assert_true (d->supervise);
    d = registry_driver (r, b->d_wait);
    assert_non_null (d);
    assert_int_equal (d->state, DRIVER_SUBMITTED);
    assert_int_equal (d->nframes, 1);
    assert_memory_equal (zframe_data (d->frames[0]), "bytes of wait", 13);
    const cJSON *arg0 =
        cJSON_GetArrayItem (cJSON_GetObjectItem (d->spec, "args"), 0);
    assert_true (cJSON_IsString (arg0));
    assert_string_equal (arg0->valuestring, "x");
    d = registry_driver (r, b->d_done);
    assert_non_null (d);
    assert_int_equal (d->state, DRIVER_FINISHED);
    assert_int_equal (d->nframes, 0);
    assert_int_equal (zlistx_size (registry_drivers (r)), 2);
    assert_int_equal (registry_pending (r), 2); /* w1, app one */
}

static void
test_replay_rebuilds (void **state)
{
    (void) state;
    s_books_t b = {0};
    s_fill (&b);
    registry_t *r = registry_new (10, 1000);
    registry_restored_t out;
    registry_restore (r, jstate_workers (b.journal), jstate_apps (b.journal),
                      jstate_execs (b.journal), jstate_drivers (b.journal),
                      s_files, &b, 100, &out);
    assert_int_equal (out.workers, 2);
    assert_int_equal (out.apps, 1);
    assert_int_equal (out.finished, 1);
    assert_int_equal (out.execs, 1);
    assert_int_equal (out.drivers, 3);
    assert_int_equal (out.skipped, 0);
    s_check_restored (&b, r);

    /* the driver comes back: adopted, not recovering, tracked again */
    reg_app_t *a1 = registry_app (r, b.app1);
    zframe_t *rid = s_rid ("new socket");
    registry_app_adopt (r, a1, rid, 7, 200);
    zframe_destroy (&rid);
    assert_false (a1->recovering);
    assert_int_equal (a1->next_exec_id, 7);
    assert_int_equal (registry_pending (r), 1);
    registry_destroy (&r);
    s_empty (&b);
}

static void
test_snapshot_rebuilds (void **state)
{
    (void) state;
    s_books_t b = {0};
    s_fill (&b);
    jstate_t *snap = jstate_new ();
    registry_dump (b.reg, s_to_jstate, snap);
    registry_t *r = registry_new (10, 1000);
    registry_restored_t out;
    registry_restore (r, jstate_workers (snap), jstate_apps (snap),
                      jstate_execs (snap), jstate_drivers (snap), s_files, &b,
                      100, &out);
    assert_int_equal (out.skipped, 0);
    s_check_restored (&b, r);
    /* a snapshot of the restored books is the snapshot, but for the
       workers' states (ALIVE is UNKNOWN until they are back) */
    jstate_t *again = jstate_new ();
    registry_dump (r, s_to_jstate, again);
    cJSON *w1 = cJSON_GetObjectItem ((cJSON *) jstate_workers (again), W1);
    cJSON_ReplaceItemInObject (w1, "state", cJSON_CreateString ("ALIVE"));
    assert_true (
        cJSON_Compare (jstate_workers (snap), jstate_workers (again), true));
    assert_true (
        cJSON_Compare (jstate_execs (snap), jstate_execs (again), true));
    assert_int_equal (cJSON_GetArraySize ((cJSON *) jstate_apps (again)), 2);
    jstate_destroy (&again);
    jstate_destroy (&snap);
    registry_destroy (&r);
    s_empty (&b);
}

static void
test_missing_files (void **state)
{
    (void) state;
    s_books_t b = {0};
    s_fill (&b);
    registry_t *r = registry_new (10, 1000);
    registry_restored_t out;
    registry_restore (r, jstate_workers (b.journal), jstate_apps (b.journal),
                      jstate_execs (b.journal), jstate_drivers (b.journal),
                      s_no_files, NULL, 100, &out);
    /* a driver that needs its files and lost them cannot run again */
    reg_driver_t *d = registry_driver (r, b.d_wait);
    assert_int_equal (d->state, DRIVER_ERROR);
    assert_contains (d->error, "files were lost");
    registry_destroy (&r);
    s_empty (&b);
}

/* A new registry restored from records (JSON texts, NULL-terminated),
   as a replay recovers them; what was restored in *out. */
static registry_t *
s_restored (const char *const *records, registry_restored_t *out)
{
    jstate_t *st = jstate_new ();
    for (size_t i = 0; records[i]; i++) {
        cJSON *rec = cJSON_Parse (records[i]);
        assert_non_null (rec);
        assert_true (jstate_apply (st, rec) >= 0);
        cJSON_Delete (rec);
    }
    registry_t *r = registry_new (10, 1000);
    registry_restore (r, jstate_workers (st), jstate_apps (st),
                      jstate_execs (st), jstate_drivers (st), s_no_files, NULL,
                      0, out);
    jstate_destroy (&st);
    return r;
}

static void
test_nonsense_skipped (void **state)
{
    (void) state;
    const char *records[] = {
        "{\"t\":\"worker\",\"id\":\"../not a worker id\",\"host\":\"h\","
        "\"cores\":1,\"memory_mb\":1}",
        "{\"t\":\"worker\",\"id\":\"" W1 "\",\"host\":\"h\",\"cores\":0,"
        "\"memory_mb\":1}",
        "{\"t\":\"worker\",\"id\":\"" W2 "\",\"host\":\"h\",\"cores\":1,"
        "\"memory_mb\":1,\"state\":\"ALIVE\"}",
        "{\"t\":\"app\",\"id\":\"app-20240101000000-0001\",\"name\":\"a\","
        "\"state\":\"RUNNING\"}",
        "{\"t\":\"app\",\"id\":\"app-20240101000000-0002\",\"name\":\"a\","
        "\"driver_url\":\"tcp://x:1\",\"state\":\"RUNNING\","
        "\"max_cores\":\"many\"}",
        "{\"t\":\"exec\",\"app_id\":\"app-20240101000000-0009\",\"exec_id\":0,"
        "\"worker_id\":\"" W2 "\",\"cores\":1,\"memory_mb\":1,"
        "\"state\":\"RUNNING\"}",
        "{\"t\":\"exec\",\"app_id\":\"app-20240101000000-0002\",\"exec_id\":0,"
        "\"worker_id\":\"" W2 "\",\"cores\":1e9,\"memory_mb\":1,"
        "\"state\":\"RUNNING\"}",
        "{\"t\":\"driver\",\"id\":\"driver-20240101000000-0001\","
        "\"state\":\"SUBMITTED\"}",
        NULL};
    registry_restored_t out;
    registry_t *r = s_restored (records, &out);
    assert_int_equal (out.workers, 1); /* W2 */
    assert_int_equal (out.apps, 1);    /* 0002: a bad max_cores is unset */
    assert_int_equal (out.execs, 0);
    assert_int_equal (out.drivers, 0);
    assert_int_equal (out.skipped, 6);
    assert_int_equal (registry_app (r, "app-20240101000000-0002")->max_cores,
                      0);
    registry_destroy (&r);
}

/* A journal written before names were labels may hold an application's
   or a driver's name with control characters: restored escaped, so that
   what the master sends with it passes the codec. */
static void
test_names_made_labels (void **state)
{
    (void) state;
    const char *records[] = {
        "{\"t\":\"app\",\"id\":\"app-20240101000000-0001\","
        "\"name\":\"evil\\nforged\\u001b[31m\",\"user\":\"u\\u0007\","
        "\"driver_url\":\"tcp://x:1\",\"state\":\"RUNNING\"}",
        "{\"t\":\"driver\",\"id\":\"driver-20240101000000-0001\","
        "\"name\":\"d\\r\",\"app\":\"x\",\"spec\":{},"
        "\"key\":\"not a key\",\"state\":\"FINISHED\"}",
        NULL};
    registry_restored_t out;
    registry_t *r = s_restored (records, &out);
    reg_app_t *app = registry_app (r, "app-20240101000000-0001");
    assert_non_null (app);
    assert_string_equal (app->name, "evil\\nforged\\x1b[31m");
    assert_string_equal (app->user, "u\\x07");
    reg_driver_t *d = registry_driver (r, "driver-20240101000000-0001");
    assert_non_null (d);
    assert_string_equal (d->name, "d\\r");
    assert_string_equal (d->key, ""); /* a key is 40 characters of Z85 */
    registry_destroy (&r);
}

/* Whose a worker's id is: the key it registered with, journaled and
   restored; another key may take it only once that key is no longer a
   worker key, and a record of an older journal (no key) takes the first
   key that registers. */
static void
test_worker_key (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    jstate_t *journal = jstate_new ();
    registry_set_journal (reg, s_to_jstate, journal);
    reg_worker_t *w = s_worker_key (reg, W1, "host1", K1);
    assert_int_equal (registry_worker_key (w, K1, true), REG_KEY_SAME);
    assert_int_equal (registry_worker_key (w, "", true), REG_KEY_SAME);
    assert_int_equal (registry_worker_key (w, K2, true), REG_KEY_OTHER);
    assert_int_equal (registry_worker_key (w, K2, false), REG_KEY_NEW);
    const cJSON *rec = cJSON_GetObjectItem (jstate_workers (journal), W1);
    assert_string_equal (hearth_json_str (rec, "curve_key"), K1);
    /* a rotation: registered again with its new key, journaled */
    w = s_worker_key (reg, W1, "host1", K3);
    assert_string_equal (w->curve_key, K3);
    rec = cJSON_GetObjectItem (jstate_workers (journal), W1);
    assert_string_equal (hearth_json_str (rec, "curve_key"), K3);
    registry_destroy (&reg);
    jstate_destroy (&journal);

    /* an older journal's record has no key; a key that is not 40
       characters of Z85 is none */
    const char *records[] = {
        "{\"t\":\"worker\",\"id\":\"" W1 "\",\"host\":\"h\",\"cores\":1,"
        "\"memory_mb\":1,\"state\":\"ALIVE\"}",
        "{\"t\":\"worker\",\"id\":\"" W2 "\",\"host\":\"h\",\"cores\":1,"
        "\"memory_mb\":1,\"state\":\"ALIVE\",\"curve_key\":\"short\"}",
        NULL};
    registry_restored_t out;
    registry_t *r = s_restored (records, &out);
    assert_int_equal (out.workers, 2);
    w = registry_worker (r, W1);
    assert_string_equal (w->curve_key, "");
    assert_int_equal (registry_worker_key (w, K2, false), REG_KEY_FIRST);
    assert_string_equal (registry_worker (r, W2)->curve_key, "");
    registry_destroy (&r);
}

/* An application ends: its executors' cores stay counted until their
   worker reports them ended, by a final state, by a registration or
   heartbeat that no longer lists them (one never started: a heartbeat
   only after the grace), or by dying. */
/* An executor its driver gives back (KILL_EXECUTORS) ends KILLED,
   RELEASED, and its cores are free at once; its worker's report of its
   end is still recognised (stopping) and frees nothing twice. */
static void
test_release_frees_cores (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg, W1, "host1");
    reg_app_t *a = s_app (reg, "dyn");
    reg_exec_t *e = registry_exec_add (reg, a, w, 2, 512);
    registry_exec_add (reg, a, w, 2, 512);
    registry_exec_set_state (reg, e, EXEC_RUNNING, NULL, -1, false);
    assert_int_equal (w->cores_used, 4);
    assert_int_equal (registry_app_executors (a), 2);
    registry_exec_release (reg, e, "released by dynamic allocation");
    assert_int_equal (w->cores_used, 2);
    assert_int_equal (w->memory_used_mb, 512);
    assert_int_equal (a->cores_granted, 2);
    assert_int_equal (registry_app_executors (a), 1);
    assert_true (registry_stopping_has (w, a->id, 0));
    assert_true (registry_stopping_ended (w, a->id, 0));
    assert_int_equal (w->cores_used, 2);
    registry_destroy (&reg);
}

static void
test_stopping_keeps_cores (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_worker_t *w = s_worker (reg, W1, "host1");
    reg_app_t *a = s_app (reg, "ends");
    char id[HEARTH_ID_MAX + 1];
    snprintf (id, sizeof id, "%s", a->id);
    reg_exec_t *e0 = registry_exec_add (reg, a, w, 2, 512);
    registry_exec_add (reg, a, w, 2, 512); /* never reported started */
    registry_exec_set_state (reg, e0, EXEC_RUNNING, NULL, -1, false);
    assert_int_equal (registry_worker_cores_used (w), 4);
    int64_t now = hearth_mono_ms ();
    registry_app_end (reg, a, APP_FINISHED, "done", NULL, NULL);
    assert_int_equal (registry_worker_cores_used (w), 4);
    assert_int_equal (registry_worker_memory_used (w), 1024);
    assert_int_equal (zlistx_size (w->executors), 0);
    assert_true (registry_stopping_has (w, id, 0));
    assert_true (registry_stopping_has (w, id, 1));
    assert_false (registry_stopping_has (w, id, 2));
    /* a heartbeat that lists exec 0 and not exec 1 (maybe not launched
       yet): nothing is free */
    char text[256];
    snprintf (text, sizeof text, "[{\"app_id\":\"%s\",\"exec_id\":0}]", id);
    cJSON *listed = cJSON_Parse (text);
    assert_false (registry_stopping_listed (w, listed, false, now, 1000));
    assert_int_equal (registry_worker_cores_used (w), 4);
    /* the worker reports exec 0 ended */
    assert_true (registry_stopping_ended (w, id, 0));
    assert_false (registry_stopping_ended (w, id, 0));
    assert_int_equal (registry_worker_cores_used (w), 2);
    /* past the grace, a heartbeat without exec 1 frees it */
    assert_false (registry_stopping_listed (w, listed, false, now + 999, 1000));
    assert_true (registry_stopping_listed (w, listed, false, now + 1000, 1000));
    assert_int_equal (registry_worker_cores_used (w), 0);
    assert_int_equal (registry_worker_memory_used (w), 0);
    /* a registration without it frees one at once; death frees all */
    reg_app_t *b = s_app (reg, "again");
    snprintf (id, sizeof id, "%s", b->id);
    registry_exec_add (reg, b, w, 2, 512);
    registry_exec_add (reg, b, w, 2, 512);
    registry_app_end (reg, b, APP_KILLED, "killed", NULL, NULL);
    assert_int_equal (registry_worker_cores_used (w), 4);
    snprintf (text, sizeof text, "[{\"app_id\":\"%s\",\"exec_id\":1}]", id);
    cJSON_Delete (listed);
    listed = cJSON_Parse (text);
    assert_true (registry_stopping_listed (w, listed, true, now, 1000));
    assert_int_equal (registry_worker_cores_used (w), 2);
    registry_worker_dead (reg, w, "silent", 5);
    assert_int_equal (registry_worker_cores_used (w), 0);
    assert_false (registry_stopping_has (w, id, 1));
    cJSON_Delete (listed);
    registry_destroy (&reg);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    hearth_log_open ("test_restore", "error", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_replay_rebuilds),
        cmocka_unit_test (test_snapshot_rebuilds),
        cmocka_unit_test (test_missing_files),
        cmocka_unit_test (test_nonsense_skipped),
        cmocka_unit_test (test_names_made_labels),
        cmocka_unit_test (test_worker_key),
        cmocka_unit_test (test_release_frees_cores),
        cmocka_unit_test (test_stopping_keeps_cores),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}
