/*  test_hist_parse.c - hearth-history's pure parts: a line of each event
    kind (evline.c), what is refused (a cut line, garbage, deep nesting),
    unescaping, the listing's summary (appsum.c) and its index form, the
    detailed summary (detail.c): percentiles, failures per task, the
    slowest attempts, executors and web-wire §5's fields. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "history/appsum.h"
#include "history/apptext.h"
#include "history/appview.h"
#include "history/detail.h"
#include "history/evline.h"
#include "tests/unit/testutil.h"

/* docs/event-log.md's example (shortened settings), one event a line. */
static const char *const s_example[] = {
    "{\"event\":\"log_start\",\"time_ms\":1796134911653,\"format\":1,\"app_"
    "id\":\"app-1\",\"name\":\"demo\",\"user\":\"alice\",\"settings\":{"
    "\"master\":\"local[2]\",\"max-failures\":\"4\",\"files\":[\"a\",\"b\"]}}",
    "{\"event\":\"app_start\",\"time_ms\":1796134911653,\"app_id\":\"app-1\","
    "\"master\":\"local[2]\",\"pid\":13216}",
    "{\"event\":\"job_start\",\"time_ms\":1796134911654,\"job\":1,\"name\":"
    "\"demo\",\"stages\":2}",
    "{\"event\":\"stage_start\",\"time_ms\":1796134911654,\"job\":1,\"stage\":"
    "1,\"name\":\"a\",\"tasks\":3}",
    "{\"event\":\"executor_added\",\"time_ms\":1796134911671,\"executor\":0,"
    "\"host\":\"vm\",\"cores\":2}",
    "{\"event\":\"task_start\",\"time_ms\":1796134911672,\"stage\":1,\"index\":"
    "0,\"attempt\":0,\"executor\":0,\"speculative\":false}",
    "{\"event\":\"task_start\",\"time_ms\":1796134911672,\"stage\":1,\"index\":"
    "1,\"attempt\":0,\"executor\":0,\"speculative\":false}",
    "{\"event\":\"task_start\",\"time_ms\":1796134911672,\"stage\":1,\"index\":"
    "2,\"attempt\":0,\"executor\":0,\"speculative\":false}",
    "{\"event\":\"task_end\",\"time_ms\":1796134911680,\"stage\":1,\"index\":0,"
    "\"attempt\":0,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
    "\"accepted\",\"run_us\":5893,\"error\":null,\"result_bytes\":2}",
    "{\"event\":\"task_end\",\"time_ms\":1796134911680,\"stage\":1,\"index\":1,"
    "\"attempt\":0,\"executor\":0,\"state\":\"FAILED\",\"outcome\":\"retried\","
    "\"run_us\":2133,\"error\":\"sh exited with status 3: first try\","
    "\"result_bytes\":0}",
    "{\"event\":\"task_start\",\"time_ms\":1796134911680,\"stage\":1,\"index\":"
    "1,\"attempt\":1,\"executor\":0,\"speculative\":false}",
    "{\"event\":\"task_end\",\"time_ms\":1796134911683,\"stage\":1,\"index\":2,"
    "\"attempt\":0,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
    "\"accepted\",\"run_us\":8168,\"error\":null,\"result_bytes\":2}",
    "{\"event\":\"task_end\",\"time_ms\":1796134911684,\"stage\":1,\"index\":1,"
    "\"attempt\":1,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
    "\"accepted\",\"run_us\":2011,\"error\":null,\"result_bytes\":2}",
    "{\"event\":\"stage_end\",\"time_ms\":1796134911684,\"job\":1,\"stage\":1,"
    "\"name\":\"a\",\"state\":\"SUCCEEDED\",\"tasks\":3,\"finished\":3,"
    "\"failed_attempts\":1}",
    "{\"event\":\"stage_start\",\"time_ms\":1796134911684,\"job\":1,\"stage\":"
    "2,\"name\":\"b\",\"tasks\":1}",
    "{\"event\":\"task_start\",\"time_ms\":1796134911684,\"stage\":2,\"index\":"
    "0,\"attempt\":0,\"executor\":0,\"speculative\":false}",
    "{\"event\":\"task_end\",\"time_ms\":1796134911686,\"stage\":2,\"index\":0,"
    "\"attempt\":0,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
    "\"accepted\",\"run_us\":1850,\"error\":null,\"result_bytes\":6}",
    "{\"event\":\"stage_end\",\"time_ms\":1796134911686,\"job\":1,\"stage\":2,"
    "\"name\":\"b\",\"state\":\"SUCCEEDED\",\"tasks\":1,\"finished\":1,"
    "\"failed_attempts\":0}",
    "{\"event\":\"job_end\",\"time_ms\":1796134911686,\"job\":1,\"name\":"
    "\"demo\",\"state\":\"SUCCEEDED\",\"error\":null}",
    "{\"event\":\"executor_removed\",\"time_ms\":1796134911686,\"executor\":0,"
    "\"reason\":\"the application is over\",\"tasks_lost\":0}",
    "{\"event\":\"app_end\",\"time_ms\":1796134911686,\"state\":\"FINISHED\","
    "\"reason\":\"its driver finished\"}",
};
#define N_EXAMPLE (sizeof s_example / sizeof s_example[0])

static void
test_each_kind (void **state)
{
    (void) state;
    static const hist_kind_t kinds[N_EXAMPLE] = {
        HIST_EV_LOG_START,   HIST_EV_APP_START,    HIST_EV_JOB_START,
        HIST_EV_STAGE_START, HIST_EV_EXEC_ADDED,   HIST_EV_TASK_START,
        HIST_EV_TASK_START,  HIST_EV_TASK_START,   HIST_EV_TASK_END,
        HIST_EV_TASK_END,    HIST_EV_TASK_START,   HIST_EV_TASK_END,
        HIST_EV_TASK_END,    HIST_EV_STAGE_END,    HIST_EV_STAGE_START,
        HIST_EV_TASK_START,  HIST_EV_TASK_END,     HIST_EV_STAGE_END,
        HIST_EV_JOB_END,     HIST_EV_EXEC_REMOVED, HIST_EV_APP_END};
    for (size_t i = 0; i < N_EXAMPLE; i++) {
        hist_line_t l;
        assert_int_equal (
            hist_line_parse (s_example[i], strlen (s_example[i]), &l), 0);
        assert_int_equal (l.kind, kinds[i]);
        assert_true (l.time_ms >= 1796134911653);
    }
    hist_line_t l;
    const char *t = s_example[9];
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    assert_int_equal (hist_line_int_or (&l, "run_us", -1), 2133);
    assert_true (hist_line_is (&l, "state", "FAILED"));
    assert_false (hist_line_is (&l, "state", "FAILE"));
    char *e = hist_line_str (&l, "error");
    assert_string_equal (e, "sh exited with status 3: first try");
    free (e);
    assert_null (hist_line_str (&l, "missing"));
    t = s_example[0];
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    const hist_field_t *f = hist_line_get (&l, "settings");
    assert_non_null (f);
    assert_int_equal (f->val[0], '{');
    assert_int_equal (f->val[f->val_len - 1], '}');
    /* a kind this reader does not know: parsed, OTHER */
    t = "{\"event\":\"shiny_new\",\"time_ms\":5,\"x\":[1,{\"y\":null}]}";
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    assert_int_equal (l.kind, HIST_EV_OTHER);
    assert_int_equal (l.time_ms, 5);
}

static void
test_refused (void **state)
{
    (void) state;
    const char *bad[] = {
        "",
        "   ",
        "[1,2]",
        "{}",
        "{\"time_ms\":1}",                       /* no event */
        "{\"event\":7}",                         /* not a string */
        "{\"event\":\"task_end\",\"time_ms\":1", /* cut */
        "{\"event\":\"task_end\",\"stage\":1,",
        "{\"event\":\"task_end\"} x", /* after the object */
        "{\"event\":\"a\",\"b\":01}", /* leading zero */
        "{\"event\":\"a\",\"b\":tru}",
        "{\"event\":\"a\",\"b\":\"\\q\"}", /* bad escape */
        "{\"event\":\"a\",\"b\":\"\\u12\"}",
        "{\"event\":\"a\" \"b\":1}",
        "{\"event\":\"a\",\"b\":\"tab\there\"}", /* raw control byte */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        hist_line_t l;
        assert_int_equal (hist_line_parse (bad[i], strlen (bad[i]), &l), -1);
    }
    /* brackets deeper than the bound: refused, not a stack overflow */
    size_t n = 100000;
    char *deep = malloc (2 * n + 32);
    strcpy (deep, "{\"event\":\"a\",\"b\":");
    size_t k = strlen (deep);
    memset (deep + k, '[', n);
    memset (deep + k + n, ']', n);
    strcpy (deep + k + 2 * n, "}");
    hist_line_t l;
    assert_int_equal (hist_line_parse (deep, strlen (deep), &l), -1);
    free (deep);
    /* every prefix of a good line is refused */
    const char *good = s_example[8];
    for (size_t len = 0; len < strlen (good); len++)
        assert_int_equal (hist_line_parse (good, len, &l), -1);
    assert_int_equal (hist_line_parse (good, strlen (good), &l), 0);
}

static void
test_unescape (void **state)
{
    (void) state;
    const char *t =
        "{\"event\":\"a\",\"s\":\"q\\\"b\\\\n\\n\\u00e9\\ud83d\\ude00"
        "\\u0000.\",\"n\":-12,\"f\":1.5,\"big\":99999999999999999999,"
        "\"nul\":null,\"t\":true}";
    hist_line_t l;
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    char *s = hist_line_str (&l, "s");
    assert_string_equal (s, "q\"b\\n\n\xc3\xa9\xf0\x9f\x98\x80\xef\xbf\xbd.");
    free (s);
    int64_t v;
    assert_true (hist_line_int (&l, "n", &v));
    assert_int_equal (v, -12);
    assert_false (hist_line_int (&l, "f", &v));   /* not an integer */
    assert_false (hist_line_int (&l, "big", &v)); /* past int64 */
    assert_false (hist_line_int (&l, "nul", &v));
    assert_null (hist_line_str (&l, "nul"));
    assert_true (hist_line_true (&l, "t"));
    assert_false (hist_line_true (&l, "nul"));
    /* an escaped value still compares */
    t = "{\"event\":\"a\",\"state\":\"FAIL\\u0045D\"}";
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    assert_true (hist_line_is (&l, "state", "FAILED"));
}

/* A string longer than HIST_MAX_STR is kept as its first bytes, cut
   where a UTF-8 character starts, and "...": never more than 1 KiB. */
static void
test_string_cap (void **state)
{
    (void) state;
    char name[HIST_MAX_STR + 1];
    memset (name, 'n', HIST_MAX_STR);
    name[HIST_MAX_STR] = '\0';
    size_t n = 2500; /* é, two bytes each: 5,000 bytes */
    char *line = malloc (2 * n + sizeof name + 64), *p = line;
    assert_non_null (line);
    p += sprintf (p, "{\"event\":\"app_end\",\"reason\":\"");
    for (size_t i = 0; i < n; i++)
        p += sprintf (p, "\xc3\xa9");
    sprintf (p, "\",\"name\":\"%s\"}", name);
    hist_line_t l;
    assert_int_equal (hist_line_parse (line, strlen (line), &l), 0);
    char *s = hist_line_str (&l, "reason");
    assert_non_null (s);
    /* 1,021 bytes would cut an é: 1,020 of them, then "..." */
    assert_int_equal (strlen (s), HIST_MAX_STR - 4 + 3);
    assert_string_equal (s + strlen (s) - 3, "...");
    assert_int_equal ((unsigned char) s[strlen (s) - 4], 0xa9);
    free (s);
    /* 1,024 bytes exactly: kept whole */
    s = hist_line_str (&l, "name");
    assert_string_equal (s, name);
    free (s);
    free (line);
    /* the listing keeps it cut */
    hist_app_t *a = hist_app_new ("app-1");
    char big[3000], text[3100];
    memset (big, 'n', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    snprintf (text, sizeof text,
              "{\"event\":\"log_start\",\"time_ms\":1,\"name\":\"%s\"}", big);
    assert_int_equal (hist_app_feed (a, text, strlen (text), true), 0);
    assert_int_equal (strlen (a->name), HIST_MAX_STR);
    hist_app_destroy (&a);
}

static hist_app_t *
s_fed (size_t upto)
{
    hist_app_t *a = hist_app_new ("app-1");
    for (size_t i = 0; i < upto; i++)
        assert_int_equal (
            hist_app_feed (a, s_example[i], strlen (s_example[i]), i == 0), 0);
    return a;
}

static void
test_appsum (void **state)
{
    (void) state;
    hist_app_t *a = s_fed (N_EXAMPLE);
    assert_true (a->is_log);
    assert_string_equal (a->name, "demo");
    assert_string_equal (a->user, "alice");
    assert_string_equal (a->state, "FINISHED");
    assert_string_equal (a->reason, "its driver finished");
    assert_int_equal (a->pid, 13216);
    assert_null (a->host);
    assert_int_equal (a->start_ms, 1796134911653);
    assert_int_equal (a->end_ms, 1796134911686);
    assert_int_equal (a->tasks_ok, 4);
    assert_int_equal (a->tasks_failed, 1);
    assert_int_equal (a->cores_max, 2);
    assert_int_equal (a->lines, (int64_t) N_EXAMPLE);
    assert_int_equal (a->bad_lines, 0);
    /* the index's form and back */
    cJSON *o = hist_app_to_json (a);
    hist_app_t *b = hist_app_from_json (o);
    assert_non_null (b);
    assert_string_equal (b->name, "demo");
    assert_string_equal (b->reason, "its driver finished");
    assert_int_equal (b->start_ms, a->start_ms);
    assert_int_equal (b->tasks_failed, 1);
    assert_true (b->is_log);
    assert_null (b->host);
    /* a damaged entry: refused */
    cJSON_DeleteItemFromObject (o, "tasks_ok");
    assert_null (hist_app_from_json (o));
    cJSON_Delete (o);
    hist_app_destroy (&b);
    hist_app_destroy (&a);
    /* not a log: the first line is something else */
    a = hist_app_new ("x");
    hist_app_feed (a, s_example[1], strlen (s_example[1]), true);
    assert_false (a->is_log);
    hist_app_feed (a, "garbage", 7, false);
    assert_int_equal (a->bad_lines, 1);
    hist_app_destroy (&a);
}

/* Cores at once: executors overlapping or one after the other. */
static void
test_cores_at_once (void **state)
{
    (void) state;
    hist_app_t *a = hist_app_new ("c");
    const char *lines[] = {
        "{\"event\":\"executor_added\",\"time_ms\":1,\"executor\":0,\"cores\":"
        "4}",
        "{\"event\":\"executor_added\",\"time_ms\":2,\"executor\":1,\"cores\":"
        "2}",
        "{\"event\":\"executor_removed\",\"time_ms\":3,\"executor\":0}",
        "{\"event\":\"executor_added\",\"time_ms\":4,\"executor\":2,\"cores\":"
        "3}",
        "{\"event\":\"executor_removed\",\"time_ms\":5,\"executor\":9}",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        hist_app_feed (a, lines[i], strlen (lines[i]), false);
    assert_int_equal (a->cores_max, 6); /* 4 + 2 */
    assert_int_equal (a->cores_sum, 9); /* 4 + 2 + 3 */
    assert_int_equal (a->cores_now, 5); /* 2 + 3; an unknown removal ignored */
    assert_int_equal (a->executors, 3);
    hist_app_destroy (&a);
}

static void
test_percentiles (void **state)
{
    (void) state;
    int64_t v[100];
    for (int i = 0; i < 100; i++)
        v[i] = i + 1;
    hist_vec_t vec = {v, 100, 100};
    assert_int_equal (hist_percentile (&vec, 50), 50);
    assert_int_equal (hist_percentile (&vec, 95), 95);
    assert_int_equal (hist_percentile (&vec, 100), 100);
    vec.n = 1;
    assert_int_equal (hist_percentile (&vec, 50), 1);
    assert_int_equal (hist_percentile (&vec, 95), 1);
    int64_t w[] = {10, 20, 30};
    hist_vec_t three = {w, 3, 3};
    assert_int_equal (hist_percentile (&three, 50), 20);
    assert_int_equal (hist_percentile (&three, 95), 30);
    hist_vec_t none = {NULL, 0, 0};
    assert_int_equal (hist_percentile (&none, 50), -1);
}

static hist_detail_t *
s_detail (const char *const *lines, size_t n, int top)
{
    hist_detail_t *d = hist_detail_new ("app-1", top);
    for (size_t i = 0; i < n; i++)
        assert_int_equal (
            hist_detail_feed (d, lines[i], strlen (lines[i]), i == 0), 0);
    assert_int_equal (hist_detail_finish (d), 0);
    return d;
}

static void
test_detail (void **state)
{
    (void) state;
    hist_detail_t *d = s_detail (s_example, N_EXAMPLE, 3);
    size_t n;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    assert_true (n > 2);
    assert_true (st[1].seen && st[2].seen && !st[0].seen);
    assert_string_equal (st[1].name, "a");
    assert_int_equal (st[1].tasks, 3);
    assert_int_equal (st[1].started, 4);
    assert_int_equal (st[1].accepted, 3);
    assert_int_equal (st[1].failed, 1);
    assert_string_equal (st[1].state, "SUCCEEDED");
    /* the run times of stage a's FINISHED attempts, sorted */
    assert_int_equal (st[1].ok_us.n, 3);
    assert_int_equal (st[1].ok_us.v[0], 2011);
    assert_int_equal (hist_percentile (&st[1].ok_us, 50), 5893);
    assert_int_equal (st[1].ok_us.v[2], 8168);
    const hist_attempt_t *top = hist_detail_top (d, &n);
    assert_int_equal (n, 3);
    assert_int_equal (top[0].run_us, 8168);
    assert_int_equal (top[1].run_us, 5893);
    assert_int_equal (top[2].run_us, 2133);
    assert_string_equal (top[2].outcome, "retried");
    const hist_taskfail_t *f = hist_detail_fails (d, &n);
    assert_int_equal (n, 1);
    assert_int_equal (f[0].stage, 1);
    assert_int_equal (f[0].index, 1);
    assert_int_equal (f[0].failed, 1);
    assert_true (f[0].succeeded);
    assert_string_equal (f[0].last_error, "sh exited with status 3: first try");
    const hist_job_t *j = hist_detail_jobs (d, &n);
    assert_string_equal (j[1].state, "SUCCEEDED");
    const hist_exec_t *x = hist_detail_execs (d, &n);
    assert_int_equal (x[0].cores, 2);
    assert_int_equal (x[0].memory_mb, -1); /* older log: unknown */
    assert_int_equal (x[0].peak_rss, -1);
    assert_int_equal (hist_detail_end_total (d, "core_ms_used"), -1);
    assert_non_null (hist_detail_settings (d));
    hist_detail_destroy (&d);
}

/* The example as a format 2 driver writes it: task lines without the
   defaults (state FINISHED, outcome accepted, a null error, 0 result
   bytes, speculative false).  Caller frees each line and the array. */
static char **
s_format2 (void)
{
    char **out = calloc (N_EXAMPLE, sizeof *out);
    assert_non_null (out);
    for (size_t i = 0; i < N_EXAMPLE; i++) {
        cJSON *o = cJSON_Parse (s_example[i]);
        assert_non_null (o);
        const char *ev = cJSON_GetObjectItem (o, "event")->valuestring;
        cJSON *st = cJSON_GetObjectItem (o, "state"),
              *oc = cJSON_GetObjectItem (o, "outcome"),
              *rb = cJSON_GetObjectItem (o, "result_bytes");
        if (strcmp (ev, "log_start") == 0)
            cJSON_SetNumberValue (cJSON_GetObjectItem (o, "format"), 2);
        if (strcmp (ev, "task_start") == 0
            && cJSON_IsFalse (cJSON_GetObjectItem (o, "speculative")))
            cJSON_DeleteItemFromObject (o, "speculative");
        if (strcmp (ev, "task_end") == 0) {
            if (strcmp (st->valuestring, "FINISHED") == 0)
                cJSON_DeleteItemFromObject (o, "state");
            if (strcmp (oc->valuestring, "accepted") == 0)
                cJSON_DeleteItemFromObject (o, "outcome");
            if (rb->valuedouble == 0)
                cJSON_DeleteItemFromObject (o, "result_bytes");
            if (cJSON_IsNull (cJSON_GetObjectItem (o, "error")))
                cJSON_DeleteItemFromObject (o, "error");
        }
        out[i] = cJSON_PrintUnformatted (o);
        cJSON_Delete (o);
    }
    return out;
}

/* Format 2's left-out fields read as their defaults: the same summary
   and detail as the format 1 example. */
static void
test_format2_defaults (void **state)
{
    (void) state;
    char **lines = s_format2 ();
    assert_null (strstr (lines[8], "outcome")); /* it is format 2 */
    assert_non_null (strstr (lines[9], "\"outcome\":\"retried\""));
    hist_app_t *a = hist_app_new ("app-1");
    for (size_t i = 0; i < N_EXAMPLE; i++)
        assert_int_equal (
            hist_app_feed (a, lines[i], strlen (lines[i]), i == 0), 0);
    assert_int_equal (a->tasks_ok, 4);
    assert_int_equal (a->tasks_failed, 1);
    hist_app_destroy (&a);
    hist_detail_t *d = s_detail ((const char *const *) lines, N_EXAMPLE, 3);
    size_t n;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    assert_int_equal (st[1].accepted, 3);
    assert_int_equal (st[1].failed, 1);
    assert_int_equal (st[1].ok_us.n, 3);
    assert_int_equal (st[2].accepted, 1);
    const hist_attempt_t *top = hist_detail_top (d, &n);
    assert_int_equal (n, 3);
    assert_string_equal (top[0].state, "FINISHED");
    assert_string_equal (top[0].outcome, "accepted");
    assert_string_equal (top[2].state, "FAILED");
    assert_string_equal (top[2].outcome, "retried");
    const hist_taskfail_t *f = hist_detail_fails (d, &n);
    assert_int_equal (n, 1);
    assert_true (f[0].succeeded);
    hist_detail_destroy (&d);
    for (size_t i = 0; i < N_EXAMPLE; i++)
        free (lines[i]);
    free (lines);
}

/* web-wire §5's fields read where present; a task given up; LOST. */
static void
test_detail_new_fields (void **state)
{
    (void) state;
    const char *lines[] = {
        "{\"event\":\"log_start\",\"time_ms\":1000,\"format\":1,\"app_id\":"
        "\"a\"}",
        "{\"event\":\"executor_added\",\"time_ms\":1000,\"executor\":1,"
        "\"host\":"
        "\"h\",\"cores\":2,\"memory_mb\":512,\"worker\":\"worker-1\"}",
        "{\"event\":\"task_end\",\"time_ms\":1100,\"stage\":3,\"index\":7,"
        "\"attempt\":0,\"executor\":1,\"state\":\"LOST\",\"outcome\":"
        "\"retried\",\"run_us\":100,\"error\":null}",
        "{\"event\":\"task_end\",\"time_ms\":1200,\"stage\":3,\"index\":7,"
        "\"attempt\":1,\"executor\":1,\"state\":\"FAILED\",\"outcome\":"
        "\"gave_up\",\"run_us\":100,\"error\":\"boom\"}",
        "{\"event\":\"executor_removed\",\"time_ms\":3000,\"executor\":1,"
        "\"reason\":\"exit 9\",\"tasks_lost\":1,\"cores\":2,\"memory_mb\":512,"
        "\"peak_rss_bytes\":268435456,\"lifetime_ms\":2000}",
        "{\"event\":\"app_end\",\"time_ms\":3000,\"state\":\"FAILED\","
        "\"reason\":"
        "\"job x failed\",\"duration_ms\":2000,\"tasks_succeeded\":0,"
        "\"tasks_failed\":1,\"executors\":1,\"core_ms_reserved\":4000,"
        "\"core_ms_used\":1}",
    };
    hist_detail_t *d = s_detail (lines, sizeof lines / sizeof lines[0], 10);
    size_t n;
    const hist_exec_t *x = hist_detail_execs (d, &n);
    assert_int_equal (x[1].memory_mb, 512);
    assert_int_equal (x[1].peak_rss, 268435456);
    assert_int_equal (x[1].lifetime_ms, 2000);
    assert_string_equal (x[1].worker, "worker-1");
    assert_string_equal (x[1].reason, "exit 9");
    const hist_taskfail_t *f = hist_detail_fails (d, &n);
    assert_int_equal (n, 1);
    assert_int_equal (f[0].failed, 2); /* lost, then failed */
    assert_true (f[0].gave_up);
    assert_false (f[0].succeeded);
    assert_string_equal (f[0].last_error, "boom");
    const hist_stage_t *st = hist_detail_stages (d, &n);
    assert_int_equal (st[3].lost, 1);
    assert_int_equal (st[3].failed, 1);
    assert_int_equal (hist_detail_end_total (d, "core_ms_reserved"), 4000);
    assert_int_equal (hist_detail_end_total (d, "tasks_failed"), 1);
    hist_detail_destroy (&d);
}

/* A resumed driver's log (docs/event-log.md): app_resumed; stage 1
   skipped (stage_skipped before its stage_start), stage 2 (after its
   stage_end), stage 3 partly reused (cached 3, 2 run), stage 4 skipped
   then run again (attempt 1); an unknown kind among them. */
static const char *const s_resumed_log[] = {
    "{\"event\":\"log_start\",\"time_ms\":1796700000000,\"format\":2,\""
    "app_id\":\"app-r\",\"name\":\"etl\",\"user\":\"bob\",\"settings\":"
    "{\"master\":\"tcp://m:7077\",\"resume\":\"app-r\"}}",
    "{\"event\":\"app_start\",\"time_ms\":1796700000100,\"app_id\":\"ap"
    "p-r\",\"master\":\"tcp://m:7077\",\"pid\":4242,\"host\":\"h1\"}",
    "{\"event\":\"app_resumed\",\"time_ms\":1796700000200,\"app\":\"app"
    "-r\",\"outputs\":1234}",
    "{\"event\":\"job_start\",\"time_ms\":1796700000300,\"job\":1,\"nam"
    "e\":\"etl\",\"stages\":3}",
    "{\"event\":\"stage_skipped\",\"time_ms\":1796700000300,\"job\":1,"
    "\"stage\":1,\"name\":\"map\",\"tasks\":8,\"reason\":\"its outputs "
    "were recorded by an earlier driver of the application and are stil"
    "l held\"}",
    "{\"event\":\"stage_start\",\"time_ms\":1796700000300,\"job\":1,\"s"
    "tage\":1,\"name\":\"map\",\"attempt\":0,\"tasks\":8,\"cached\":8}",
    "{\"event\":\"stage_end\",\"time_ms\":1796700000300,\"job\":1,\"sta"
    "ge\":1,\"name\":\"map\",\"state\":\"SUCCEEDED\",\"attempt\":0,\"ta"
    "sks\":8,\"finished\":8,\"failed_attempts\":0}",
    "{\"event\":\"stage_start\",\"time_ms\":1796700000300,\"job\":1,\"s"
    "tage\":2,\"name\":\"sort\",\"attempt\":0,\"tasks\":4,\"cached\":4}",
    "{\"event\":\"stage_end\",\"time_ms\":1796700000300,\"job\":1,\"sta"
    "ge\":2,\"name\":\"sort\",\"state\":\"SUCCEEDED\",\"attempt\":0,\"t"
    "asks\":4,\"finished\":4,\"failed_attempts\":0}",
    "{\"event\":\"stage_skipped\",\"time_ms\":1796700000300,\"job\":1,"
    "\"stage\":2,\"name\":\"sort\",\"tasks\":4,\"reason\":\"kept by dri"
    "ver 1\"}",
    "{\"event\":\"stage_start\",\"time_ms\":1796700000300,\"job\":1,\"s"
    "tage\":3,\"name\":\"reduce\",\"attempt\":0,\"tasks\":2,\"cached\":"
    "3}",
    "{\"event\":\"shiny_new\",\"time_ms\":1796700000350,\"stage\":3,\"s"
    "tate\":\"WHATEVER\"}",
    "{\"event\":\"executor_added\",\"time_ms\":1796700000400,\"executor"
    "\":0,\"host\":\"h1\",\"cores\":2,\"memory_mb\":1024,\"worker\":\"w"
    "-1\"}",
    "{\"event\":\"task_start\",\"time_ms\":1796700000400,\"stage\":3,\""
    "index\":3,\"attempt\":0,\"executor\":0}",
    "{\"event\":\"task_start\",\"time_ms\":1796700000400,\"stage\":3,\""
    "index\":4,\"attempt\":0,\"executor\":0}",
    "{\"event\":\"task_end\",\"time_ms\":1796700000410,\"stage\":3,\"in"
    "dex\":3,\"attempt\":0,\"executor\":0,\"run_us\":1000}",
    "{\"event\":\"task_end\",\"time_ms\":1796700000430,\"stage\":3,\"in"
    "dex\":4,\"attempt\":0,\"executor\":0,\"run_us\":3000}",
    "{\"event\":\"stage_end\",\"time_ms\":1796700000430,\"job\":1,\"sta"
    "ge\":3,\"name\":\"reduce\",\"state\":\"SUCCEEDED\",\"attempt\":0,"
    "\"tasks\":2,\"finished\":2,\"failed_attempts\":0}",
    "{\"event\":\"job_end\",\"time_ms\":1796700000430,\"job\":1,\"name"
    "\":\"etl\",\"state\":\"SUCCEEDED\",\"error\":null}",
    "{\"event\":\"job_start\",\"time_ms\":1796700000500,\"job\":2,\"nam"
    "e\":\"again\",\"stages\":1}",
    "{\"event\":\"stage_skipped\",\"time_ms\":1796700000500,\"job\":2,"
    "\"stage\":4,\"name\":\"map2\",\"tasks\":2,\"reason\":\"its outputs"
    " were recorded by an earlier driver of the application and are sti"
    "ll held\"}",
    "{\"event\":\"stage_start\",\"time_ms\":1796700000500,\"job\":2,\"s"
    "tage\":4,\"name\":\"map2\",\"attempt\":0,\"tasks\":2,\"cached\":2}",
    "{\"event\":\"stage_end\",\"time_ms\":1796700000500,\"job\":2,\"sta"
    "ge\":4,\"name\":\"map2\",\"state\":\"SUCCEEDED\",\"attempt\":0,\"t"
    "asks\":2,\"finished\":2,\"failed_attempts\":0}",
    "{\"event\":\"stage_start\",\"time_ms\":1796700000600,\"job\":2,\"s"
    "tage\":4,\"name\":\"map2\",\"attempt\":1,\"tasks\":1}",
    "{\"event\":\"task_start\",\"time_ms\":1796700000600,\"stage\":4,\""
    "index\":0,\"attempt\":0,\"executor\":0}",
    "{\"event\":\"task_end\",\"time_ms\":1796700000620,\"stage\":4,\"in"
    "dex\":0,\"attempt\":0,\"executor\":0,\"run_us\":2000}",
    "{\"event\":\"stage_end\",\"time_ms\":1796700000620,\"job\":2,\"sta"
    "ge\":4,\"name\":\"map2\",\"state\":\"SUCCEEDED\",\"attempt\":1,\"t"
    "asks\":1,\"finished\":1,\"failed_attempts\":0}",
    "{\"event\":\"job_end\",\"time_ms\":1796700000620,\"job\":2,\"name"
    "\":\"again\",\"state\":\"SUCCEEDED\",\"error\":null}",
    "{\"event\":\"executor_removed\",\"time_ms\":1796700000700,\"execut"
    "or\":0,\"reason\":\"the application is over\",\"tasks_lost\":0,\"c"
    "ores\":2,\"memory_mb\":1024,\"peak_rss_bytes\":104857600,\"lifetim"
    "e_ms\":300}",
    "{\"event\":\"app_end\",\"time_ms\":1796700000700,\"state\":\"FINIS"
    "HED\",\"reason\":\"its driver finished\",\"duration_ms\":600,\"tas"
    "ks_succeeded\":3,\"tasks_failed\":0,\"executors\":1,\"core_ms_rese"
    "rved\":600,\"core_ms_used\":6}",
};
#define N_RESUMED (sizeof s_resumed_log / sizeof s_resumed_log[0])

/* What `hearth-history --dir DIR app-r` prints for it. */
static const char s_resumed_text[] =
    "APPLICATION app-r  etl  user bob\n"
    "  state    FINISHED: its driver finished\n"
    "  resumed  1234 outputs of earlier drivers given back, 3 stages "
    "skipped\n"
    "  master   tcp://m:7077  driver pid 4242 on h1\n"
    "  started  2026-12-08T03:20:00Z  ended 2026-12-08T03:20:00Z  duration "
    "700ms\n"
    "  cores    2 at most at once (2 added in all)\n"
    "\n"
    "SETTINGS\n"
    "  master                 tcp://m:7077\n"
    "\n"
    "TASKS\n"
    "  3 succeeded, 0 failed attempts, 3 attempts started\n"
    "  run time of successful attempts (p50 p95 max): 2.0ms 3.0ms 3.0ms\n"
    "\n"
    "ACCOUNTING\n"
    "  core-seconds: 0.600 reserved (from app_end), 0.006 used (from "
    "app_end): 1.0% used\n"
    "  memory: 1024 MiB reserved, 100.0 MiB peak (1 executors with a "
    "figure): 9.8%\n"
    "\n"
    "JOBS\n"
    "  JOB  NAME                 STAGES STATE      DURATION ERROR\n"
    "  1    etl                  3      SUCCEEDED  130ms    -\n"
    "  2    again                1      SUCCEEDED  120ms    -\n"
    "\n"
    "STAGES\n"
    "  STAGE JOB  NAME             STATE       TASKS CACHED     OK FAILED "
    "KILLED  LOST  SPEC RUNS  RUN p50 p95 max   LOCALITY\n"
    "  1     1    map              SKIPPED         8      8      0      0 "
    "     0     0     0    1  -                 -\n"
    "  2     1    sort             SKIPPED         4      4      0      0 "
    "     0     0     0    1  -                 -\n"
    "  3     1    reduce           SUCCEEDED       2      3      2      0 "
    "     0     0     0    1  1.0ms 3.0ms 3.0ms  -\n"
    "  4     2    map2             SUCCEEDED       2      2      1      0 "
    "     0     0     0    2  2.0ms 2.0ms 2.0ms  -\n"
    "  stage 1 (map) skipped: its outputs were recorded by an earlier "
    "driver of the application and are still held\n"
    "  stage 2 (sort) skipped: kept by driver 1\n"
    "  stage 4 (map2) skipped: its outputs were recorded by an earlier "
    "driver of the application and are still held; run again later (1 "
    "attempt)\n"
    "\n"
    "SLOWEST ATTEMPTS\n"
    "  STAGE TASK    ATTEMPT EXECUTOR RUN       STATE     OUTCOME\n"
    "  3     4       0       0        3.0ms     FINISHED  accepted\n"
    "  4     0       0       0        2.0ms     FINISHED  accepted\n"
    "  3     3       0       0        1.0ms     FINISHED  accepted\n"
    "\n"
    "FAILURES\n"
    "  none\n"
    "\n"
    "EXECUTORS\n"
    "  ID   HOST             CORES  MEMORY      PEAK   RATIO LIFETIME  TASKS "
    "WORKER EXIT REASON\n"
    "  0    h1                   2   1024M    100.0M    9.8% 300ms         3 "
    "w-1    the application is over\n";

/* The summary text of a detail, as hist_appview prints it (a new string,
   caller frees). */
static char *
s_text (hist_detail_t *d)
{
    const hist_app_t *a = hist_detail_app (d);
    cJSON *doc = hist_appview_json (d, a->state, a->reason, 0);
    assert_non_null (doc);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&text, &len);
    assert_non_null (out);
    hist_apptext (out, doc);
    fclose (out);
    cJSON_Delete (doc);
    return text;
}

static void
test_resumed (void **state)
{
    (void) state;
    hist_line_t l;
    const char *t = s_resumed_log[2];
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    assert_int_equal (l.kind, HIST_EV_APP_RESUMED);
    t = s_resumed_log[4];
    assert_int_equal (hist_line_parse (t, strlen (t), &l), 0);
    assert_int_equal (l.kind, HIST_EV_STAGE_SKIPPED);
    /* the listing's summary and its index form; not resumed: -1 */
    hist_app_t *a = hist_app_new ("app-r");
    for (size_t i = 0; i < N_RESUMED; i++)
        assert_int_equal (hist_app_feed (a, s_resumed_log[i],
                                         strlen (s_resumed_log[i]), i == 0),
                          0);
    assert_int_equal (a->resumed, 1234);
    assert_int_equal (a->bad_lines, 0); /* the unknown kind: not bad */
    cJSON *o = hist_app_to_json (a);
    hist_app_t *b = hist_app_from_json (o);
    assert_non_null (b);
    assert_int_equal (b->resumed, 1234);
    cJSON_Delete (o);
    hist_app_destroy (&b);
    hist_app_destroy (&a);
    a = s_fed (N_EXAMPLE);
    assert_int_equal (a->resumed, -1);
    o = hist_app_to_json (a);
    b = hist_app_from_json (o);
    assert_int_equal (b->resumed, -1);
    cJSON_Delete (o);
    hist_app_destroy (&b);
    hist_app_destroy (&a);
    /* the stages, whatever the order of stage_skipped and its stage's
       stage_start and stage_end */
    hist_detail_t *d = hist_detail_new ("app-r", 10);
    for (size_t i = 0; i < N_RESUMED; i++)
        assert_int_equal (hist_detail_feed (d, s_resumed_log[i],
                                            strlen (s_resumed_log[i]), i == 0),
                          0);
    assert_int_equal (hist_detail_finish (d), 0);
    size_t n;
    const hist_stage_t *st = hist_detail_stages (d, &n);
    assert_true (n > 4);
    assert_true (st[1].skipped && st[2].skipped && !st[3].skipped
                 && st[4].skipped);
    assert_string_equal (st[2].skip_reason, "kept by driver 1");
    assert_int_equal (st[2].cached, 4);
    assert_int_equal (st[4].runs, 2);
    /* the text: exactly */
    char *text = s_text (d);
    assert_string_equal (text, s_resumed_text);
    free (text);
    hist_detail_destroy (&d);
    /* an application not resumed: no such line, no such note */
    d = s_detail (s_example, N_EXAMPLE, 3);
    text = s_text (d);
    assert_null (strstr (text, "resumed"));
    assert_null (strstr (text, "SKIPPED"));
    assert_null (strstr (text, "skipped"));
    free (text);
    hist_detail_destroy (&d);
}

/* A log cut right after a stage_skipped (no stage_start nor stage_end
   yet): the stage is SKIPPED, its tasks all cached. */
static void
test_skipped_cut (void **state)
{
    (void) state;
    hist_detail_t *d = s_detail (s_resumed_log, 5, 10);
    const hist_app_t *a = hist_detail_app (d);
    cJSON *doc = hist_appview_json (d, "RUNNING", "", 0);
    assert_non_null (doc);
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (doc, "resumed")));
    assert_int_equal (a->resumed, 1234);
    const cJSON *s =
        cJSON_GetArrayItem (cJSON_GetObjectItem (doc, "stages"), 0);
    assert_string_equal (cJSON_GetObjectItem (s, "state")->valuestring,
                         "SKIPPED");
    assert_int_equal (cJSON_GetObjectItem (s, "tasks")->valueint, 8);
    assert_int_equal (cJSON_GetObjectItem (s, "cached")->valueint, 8);
    cJSON_Delete (doc);
    hist_detail_destroy (&d);
}

int
main (void)
{
    alarm (120);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_each_kind),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_unescape),
        cmocka_unit_test (test_string_cap),
        cmocka_unit_test (test_appsum),
        cmocka_unit_test (test_cores_at_once),
        cmocka_unit_test (test_percentiles),
        cmocka_unit_test (test_detail),
        cmocka_unit_test (test_format2_defaults),
        cmocka_unit_test (test_detail_new_fields),
        cmocka_unit_test (test_resumed),
        cmocka_unit_test (test_skipped_cut),
    };
    return cmocka_run_group_tests_name ("hist_parse", tests, NULL, NULL);
}
