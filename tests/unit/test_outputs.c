/*  test_outputs.c - resumable applications, the master's books (issue
    39): the outputs table (master/outputs.c: add, replace, lost, the
    bound, the batches of APPLICATION_OUTPUTS and their filter), the
    registry's RELAUNCHING applications (master/regresume.c: kept past
    the retained limit, resumed under the next epoch with their token and
    table, ended at their deadline), and the journal's "outs" records
    (master/jstate.c) replayed, dropped with their application, and
    rebuilt from a snapshot (registry_dump, registry_restore_outputs). */
#include "config.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/proto.h"
#include "master/jstate.h"
#include "master/outputs.h"
#include "master/registry.h"
#include "tests/unit/testutil.h"

/* A new array parsed from text (single quotes for double ones). */
static cJSON *
s_json (const char *text)
{
    char buf[4096];
    snprintf (buf, sizeof buf, "%s", text);
    for (char *p = buf; *p; p++)
        if (*p == '\'')
            *p = '"';
    cJSON *j = cJSON_Parse (buf);
    assert_non_null (j);
    return j;
}

/* Apply text (an array) to t; returns what outputs_apply does. */
static int
s_apply (outputs_t *t, const char *text)
{
    cJSON *a = s_json (text);
    int rc = outputs_apply (t, a);
    cJSON_Delete (a);
    return rc;
}

/* What a listing saw. */
typedef struct {
    int batches; /* batches told */
    int outputs; /* outputs in them */
    int lasts;   /* batches marked last */
    int largest; /* the largest batch */
    cJSON *all;  /* every output listed (owned) */
} s_seen_t;

static int
s_batch (void *arg, cJSON *batch, bool last)
{
    s_seen_t *s = arg;
    int n = cJSON_GetArraySize (batch);
    s->batches++;
    s->outputs += n;
    s->lasts += last;
    if (n > s->largest)
        s->largest = n;
    cJSON *o;
    while ((o = cJSON_DetachItemFromArray (batch, 0)))
        cJSON_AddItemToArray (s->all, o);
    cJSON_Delete (batch);
    return 0;
}

/* The output of all listed for stage/kind/index, or NULL. */
static const cJSON *
s_find (const cJSON *all, const char *stage, const char *kind, int index)
{
    const cJSON *o;
    cJSON_ArrayForEach (o, all)
    {
        if (strcmp (hearth_json_str (o, "stage"), stage) == 0
            && strcmp (hearth_json_str (o, "kind"), kind) == 0
            && hearth_json_int (o, "index", -1) == index)
            return o;
    }
    return NULL;
}

static void
test_add_replace_lost (void **state)
{
    (void) state;
    outputs_t *t = outputs_new (0);
    assert_non_null (t);
    assert_int_equal (outputs_max_shuffle_id (t), -1);
    assert_int_equal (
        s_apply (t, "[{'stage':'aa','kind':'map','index':0,'attempt':0,"
                    "'shuffle_id':3,'worker_id':'w1','sizes':[1,2]},"
                    "{'stage':'aa','kind':'map','index':1,'shuffle_id':3},"
                    "{'stage':'aa','kind':'part','index':0,'name':'p0'}]"),
        3);
    assert_int_equal (outputs_size (t), 3);
    assert_int_equal (outputs_max_shuffle_id (t), 3);
    /* a later attempt replaces; lost removes; an unknown kind is skipped */
    assert_int_equal (
        s_apply (t, "[{'stage':'aa','kind':'map','index':0,'attempt':1,"
                    "'shuffle_id':5,'worker_id':'w2'},"
                    "{'stage':'aa','kind':'map','index':1,'lost':true},"
                    "{'stage':'aa','kind':'disk','index':9}]"),
        2);
    assert_int_equal (outputs_size (t), 2);
    assert_int_equal (outputs_max_shuffle_id (t), 5);
    s_seen_t seen = {.all = cJSON_CreateArray ()};
    assert_int_equal (outputs_list (t, 0, NULL, NULL, s_batch, &seen), 0);
    assert_int_equal (seen.outputs, 2);
    const cJSON *m0 = s_find (seen.all, "aa", "map", 0);
    assert_non_null (m0);
    assert_int_equal (hearth_json_int (m0, "attempt", -1), 1);
    assert_string_equal (hearth_json_str (m0, "worker_id"), "w2");
    assert_null (s_find (seen.all, "aa", "map", 1));
    assert_non_null (s_find (seen.all, "aa", "part", 0));
    /* the same stage and index of another kind is another output */
    assert_null (
        cJSON_GetObjectItem (s_find (seen.all, "aa", "part", 0), "lost"));
    cJSON_Delete (seen.all);
    outputs_destroy (&t);
    outputs_destroy (&t); /* idempotent */
}

static void
test_bound (void **state)
{
    (void) state;
    outputs_t *t = outputs_new (3);
    assert_int_equal (s_apply (t, "[{'stage':'s','kind':'map','index':0},"
                                  "{'stage':'s','kind':'map','index':1}]"),
                      2);
    /* two new would make four: refused whole */
    errno = 0;
    assert_int_equal (s_apply (t, "[{'stage':'s','kind':'map','index':2},"
                                  "{'stage':'s','kind':'map','index':3}]"),
                      -1);
    assert_int_equal (errno, ENOSPC);
    assert_int_equal (outputs_size (t), 2);
    /* replacing and removing always fit */
    assert_int_equal (s_apply (t, "[{'stage':'s','kind':'map','index':0,"
                                  "'attempt':2},"
                                  "{'stage':'s','kind':'map','index':1,"
                                  "'lost':true},"
                                  "{'stage':'s','kind':'map','index':2}]"),
                      3);
    assert_int_equal (outputs_size (t), 2);
    outputs_destroy (&t);
}

/* Keeps map outputs whose worker is not "dead". */
static bool
s_not_dead (void *arg, const cJSON *o)
{
    (void) arg;
    const char *w = hearth_json_str (o, "worker_id");
    return !w || strcmp (w, "dead") != 0;
}

static void
test_batches_and_filter (void **state)
{
    (void) state;
    outputs_t *t = outputs_new (0);
    /* an empty table: one empty last batch */
    s_seen_t seen = {.all = cJSON_CreateArray ()};
    assert_int_equal (outputs_list (t, 3, NULL, NULL, s_batch, &seen), 0);
    assert_int_equal (seen.batches, 1);
    assert_int_equal (seen.lasts, 1);
    assert_int_equal (seen.outputs, 0);
    cJSON_Delete (seen.all);
    cJSON *a = cJSON_CreateArray ();
    for (int i = 0; i < 10; i++) {
        char text[200];
        snprintf (text, sizeof text,
                  "{'stage':'st','kind':'map','index':%d,'worker_id':'%s'}", i,
                  i % 4 == 0 ? "dead" : "alive");
        cJSON_AddItemToArray (a, s_json (text));
    }
    assert_int_equal (outputs_apply (t, a), 10);
    cJSON_Delete (a);
    /* 10 in batches of at most 3, the last one marked */
    seen = (s_seen_t){.all = cJSON_CreateArray ()};
    assert_int_equal (outputs_list (t, 3, NULL, NULL, s_batch, &seen), 0);
    assert_int_equal (seen.outputs, 10);
    assert_int_equal (seen.batches, 4);
    assert_int_equal (seen.lasts, 1);
    assert_int_equal (seen.largest, 3);
    cJSON_Delete (seen.all);
    /* the dead worker's three are left out */
    seen = (s_seen_t){.all = cJSON_CreateArray ()};
    assert_int_equal (outputs_list (t, 0, s_not_dead, NULL, s_batch, &seen), 0);
    assert_int_equal (seen.outputs, 7);
    assert_int_equal (seen.batches, 1);
    assert_null (s_find (seen.all, "st", "map", 4));
    assert_non_null (s_find (seen.all, "st", "map", 5));
    cJSON_Delete (seen.all);
    outputs_destroy (&t);
}

/* --- the registry ------------------------------------------------------ */

static reg_app_t *
s_app (registry_t *reg, const char *url, const char *token)
{
    zframe_t *rid = zframe_new (url, strlen (url));
    registry_app_desc_t desc = {.name = "job",
                                .driver_url = url,
                                .token = token,
                                .memory_per_executor_mb = 256,
                                .routing_id = rid};
    reg_app_t *app = registry_app_register (reg, &desc, 0);
    zframe_destroy (&rid);
    assert_non_null (app);
    return app;
}

static void
s_record (registry_t *reg, reg_app_t *app, const char *text)
{
    cJSON *a = s_json (text);
    assert_true (registry_app_record_outputs (reg, app, a) >= 0);
    cJSON_Delete (a);
}

static void
test_relaunching_resumed (void **state)
{
    (void) state;
    registry_t *reg = registry_new (0, 1000); /* keeps no completed app */
    reg_app_t *app = s_app (reg, "tcp://d1:1", "tok1");
    assert_int_equal (app->epoch, 1);
    s_record (reg, app,
              "[{'stage':'x','kind':'map','index':0,"
              "'shuffle_id':7}]");
    registry_app_relaunching (reg, app, "driver lost: test", 5000, NULL, NULL);
    assert_int_equal (app->state, APP_RELAUNCHING);
    assert_int_equal (app->resume_by_ms, 5000);
    /* still known, though no completed application is retained */
    assert_ptr_equal (registry_app (reg, app->id), app);
    assert_int_equal (outputs_size (app->outputs), 1);
    assert_null (registry_relaunching_due (reg, 4999));
    assert_ptr_equal (registry_relaunching_due (reg, 5000), app);
    /* a new driver resumes it: same id and token, next epoch */
    zframe_t *rid = zframe_new ("d2", 2);
    registry_app_desc_t desc = {
        .driver_url = "tcp://d2:2", .driver_key = "KEY2", .routing_id = rid};
    assert_int_equal (registry_app_resume (reg, app, &desc, 10), 0);
    assert_int_equal (app->state, APP_WAITING);
    assert_int_equal (app->epoch, 2);
    assert_string_equal (app->driver_url, "tcp://d2:2");
    assert_string_equal (app->driver_key, "KEY2");
    assert_string_equal (app->token, "tok1");
    assert_int_equal (app->resume_by_ms, 0);
    assert_null (app->end_reason);
    assert_int_equal (outputs_size (app->outputs), 1);
    void *record = NULL;
    assert_int_equal (registry_peer (reg, rid, &record), PEER_APP);
    assert_ptr_equal (record, app);
    assert_int_equal (zlistx_size (registry_apps (reg)), 1);
    zframe_destroy (&rid);
    /* not RELAUNCHING: no resume */
    assert_int_equal (registry_app_resume (reg, app, &desc, 10), -1);
    assert_int_equal (errno, EINVAL);
    /* lost again, then its window passes */
    registry_app_relaunching (reg, app, "driver lost: again", 9000, NULL, NULL);
    registry_app_relaunch_end (reg, app, APP_FAILED, "not resumed");
    assert_null (registry_app (reg, app->id)); /* past the retained 0 */
    registry_destroy (&reg);
}

static void
test_end_drops_table (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_app_t *app = s_app (reg, "tcp://d1:1", NULL);
    s_record (reg, app, "[{'stage':'x','kind':'part','index':0}]");
    registry_app_end (reg, app, APP_FINISHED, "done", NULL, NULL);
    assert_null (app->outputs);
    assert_int_equal (app->state, APP_FINISHED);
    assert_null (registry_relaunching_due (reg, INT64_MAX));
    /* the bound: refused, warned once */
    registry_set_outputs_max (reg, 1);
    reg_app_t *b = s_app (reg, "tcp://d3:3", NULL);
    s_record (reg, b, "[{'stage':'x','kind':'part','index':0}]");
    cJSON *more = s_json ("[{'stage':'x','kind':'part','index':1}]");
    assert_int_equal (registry_app_record_outputs (reg, b, more), -1);
    assert_int_equal (errno, ENOSPC);
    assert_true (registry_app_outputs_warn (reg, b));
    assert_false (registry_app_outputs_warn (reg, b));
    cJSON_Delete (more);
    registry_destroy (&reg);
}

/* --- the journal ------------------------------------------------------- */

static void
s_to_jstate (void *arg, const cJSON *record, bool sync)
{
    (void) sync;
    assert_true (jstate_apply (arg, record) >= 0);
}

static void
test_journal_outs (void **state)
{
    (void) state;
    jstate_t *st = jstate_new ();
    const char *recs[] = {
        "{'t':'app','id':'a1','state':'RUNNING'}",
        "{'t':'outs','app_id':'a1','outputs':[{'stage':'s','kind':'map',"
        "'index':0}]}",
        "{'t':'outs','app_id':'a1','outputs':[{'stage':'s','kind':'map',"
        "'index':0,'lost':true}]}",
        "{'t':'app','id':'a2','state':'RUNNING'}",
        "{'t':'outs','app_id':'a2','outputs':[{'stage':'s','kind':'part',"
        "'index':0}]}",
        "{'t':'app','id':'a2','state':'FINISHED'}",
        "{'t':'app','id':'a3','state':'RELAUNCHING'}",
        "{'t':'outs','app_id':'a3','outputs':[]}",
        "{'t':'app-','id':'a3'}",
        NULL};
    for (int i = 0; recs[i]; i++) {
        cJSON *r = s_json (recs[i]);
        assert_int_equal (jstate_apply (st, r), 1);
        cJSON_Delete (r);
    }
    cJSON *bad = s_json ("{'t':'outs','outputs':[]}"); /* no app_id */
    assert_int_equal (jstate_apply (st, bad), -1);
    cJSON_Delete (bad);
    const cJSON *outs = jstate_outputs (st);
    /* a1's two records, in order; a2's dropped at its end, a3's with it */
    assert_int_equal (cJSON_GetArraySize (outs), 1);
    assert_int_equal (cJSON_GetArraySize (cJSON_GetObjectItem (outs, "a1")), 2);
    jstate_destroy (&st);
}

static void
test_snapshot_round_trip (void **state)
{
    (void) state;
    registry_t *reg = registry_new (10, 1000);
    reg_app_t *app = s_app (reg, "tcp://d1:1", "tok");
    char text[200];
    cJSON *batch = cJSON_CreateArray ();
    for (int i = 0; i < 25000; i++) { /* three records in a snapshot */
        snprintf (text, sizeof text,
                  "{'stage':'s','kind':'map','index':%d,'shuffle_id':%d}", i,
                  i % 9);
        cJSON_AddItemToArray (batch, s_json (text));
    }
    assert_int_equal (registry_app_record_outputs (reg, app, batch), 25000);
    cJSON_Delete (batch);
    s_record (reg, app,
              "[{'stage':'t','kind':'map','index':0,"
              "'shuffle_id':40},{'stage':'t','kind':'map',"
              "'index':0,'lost':true}]");
    registry_app_relaunching (reg, app, "driver lost: test", 123456789, NULL,
                              NULL);
    reg_app_t *done = s_app (reg, "tcp://d2:2", NULL);
    s_record (reg, done, "[{'stage':'x','kind':'part','index':0}]");
    registry_app_end (reg, done, APP_FAILED, "bye", NULL, NULL);
    char id[HEARTH_ID_MAX + 1], done_id[HEARTH_ID_MAX + 1];
    snprintf (id, sizeof id, "%s", app->id);
    snprintf (done_id, sizeof done_id, "%s", done->id);
    jstate_t *snap = jstate_new ();
    registry_dump (reg, s_to_jstate, snap);
    assert_int_equal (
        cJSON_GetArraySize (cJSON_GetObjectItem (jstate_outputs (snap), id)),
        3);
    registry_t *back = registry_new (10, 1000);
    registry_restored_t out;
    registry_restore (back, jstate_workers (snap), jstate_apps (snap),
                      jstate_execs (snap), jstate_drivers (snap), NULL, NULL,
                      100, &out);
    assert_int_equal (registry_restore_outputs (back, jstate_outputs (snap)),
                      0);
    reg_app_t *r = registry_app (back, id);
    assert_non_null (r);
    assert_int_equal (r->state, APP_RELAUNCHING);
    assert_int_equal (r->resume_by_ms, 123456789);
    assert_int_equal (r->epoch, 1);
    assert_string_equal (r->token, "tok");
    assert_int_equal (outputs_size (r->outputs), 25000);
    /* the removed output's shuffle id is still the highest */
    assert_int_equal (outputs_max_shuffle_id (r->outputs), 40);
    assert_null (registry_app (back, done_id)->outputs);
    jstate_destroy (&snap);
    registry_destroy (&back);
    registry_destroy (&reg);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_add_replace_lost),
        cmocka_unit_test (test_bound),
        cmocka_unit_test (test_batches_and_filter),
        cmocka_unit_test (test_relaunching_resumed),
        cmocka_unit_test (test_end_drops_table),
        cmocka_unit_test (test_journal_outs),
        cmocka_unit_test (test_snapshot_round_trip),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
