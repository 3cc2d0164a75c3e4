/*  test_hist_pages.c - hearth-history's pages (libcore/webpage_history.c)
    over the documents history/list.c and history/appview.c build from a
    directory written here: the listing holds every application, newest
    first, each id a link to app/ID, the filter form holds the request's
    values; the summary has its stage table, failures with their last
    error, executors with their exit reason, accounting; every value from
    a log (a name with <script>, an error with quotes and ampersands) is
    escaped; a document without an id is a 404 page; the documents are
    hist_list_json's and hist_appview_doc's, and an unknown application
    is "missing"; the summary's timeline is on its page, and a log of
    more attempts than it draws has the last ones and the cut note. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "history/appview.h"
#include "history/list.h"
#include "libcore/fstree.h"
#include "libcore/webpage.h"
#include "tests/unit/testutil.h"

/* Fail unless text does not contain needle. */
#define assert_lacks(text, needle)                                             \
    do {                                                                       \
        if (strstr ((text), (needle)))                                         \
            fail_msg ("page contains '%s'", (needle));                         \
    } while (0)

#define OK "app-20261201093000-0001"
#define BAD "app-20261201093100-0002"
/* 2026-12-01T09:30:00Z */
#define T0 1796117400000LL

static char s_dir[256];

static void
s_write (const char *id, const char *text)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s.events", s_dir, id);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* Two logs: OK finished (a stage of two tasks, one executor), BAD failed
   a minute later (a task failed twice with an error that needs escaping,
   an executor removed as OOM_KILLED), named with markup. */
static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "%s/hist-pages-XXXXXX",
              getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
    if (!mkdtemp (s_dir))
        return -1;
    char text[8192];
    snprintf (
        text, sizeof text,
        "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":1,\"app_id\":"
        "\"" OK "\",\"name\":\"nightly\",\"user\":\"ann\",\"settings\":"
        "{\"master\":\"local[2]\",\"max-failures\":4}}\n"
        "{\"event\":\"app_start\",\"time_ms\":%lld,\"app_id\":\"" OK "\","
        "\"master\":\"local[2]\",\"pid\":1}\n"
        "{\"event\":\"executor_added\",\"time_ms\":%lld,\"executor\":0,"
        "\"host\":\"h1\",\"cores\":2,\"memory_mb\":512}\n"
        "{\"event\":\"job_start\",\"time_ms\":%lld,\"job\":0,\"name\":\"j\","
        "\"stages\":1}\n"
        "{\"event\":\"stage_start\",\"time_ms\":%lld,\"stage\":0,\"job\":0,"
        "\"name\":\"scan-stage\",\"tasks\":2}\n"
        "{\"event\":\"task_start\",\"time_ms\":%lld,\"stage\":0,\"index\":0,"
        "\"attempt\":0,\"executor\":0}\n"
        "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":0,\"index\":0,"
        "\"attempt\":0,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
        "\"accepted\",\"run_us\":1500}\n"
        "{\"event\":\"task_start\",\"time_ms\":%lld,\"stage\":0,\"index\":1,"
        "\"attempt\":0,\"executor\":0}\n"
        "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":0,\"index\":1,"
        "\"attempt\":0,\"executor\":0,\"state\":\"FINISHED\",\"outcome\":"
        "\"accepted\",\"run_us\":2500}\n"
        "{\"event\":\"stage_end\",\"time_ms\":%lld,\"stage\":0,\"state\":"
        "\"SUCCEEDED\",\"finished\":2}\n"
        "{\"event\":\"job_end\",\"time_ms\":%lld,\"job\":0,\"state\":"
        "\"SUCCEEDED\"}\n"
        "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":\"FINISHED\","
        "\"reason\":\"its driver finished\"}\n",
        T0, T0, T0 + 1, T0 + 2, T0 + 2, T0 + 3, T0 + 5, T0 + 3, T0 + 6, T0 + 7,
        T0 + 7, T0 + 8);
    s_write (OK, text);
    snprintf (
        text, sizeof text,
        "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":1,\"app_id\":"
        "\"" BAD "\",\"name\":\"<script>x</script>\",\"user\":\"bob\"}\n"
        "{\"event\":\"app_start\",\"time_ms\":%lld,\"app_id\":\"" BAD "\","
        "\"master\":\"local[2]\",\"pid\":1}\n"
        "{\"event\":\"executor_added\",\"time_ms\":%lld,\"executor\":0,"
        "\"host\":\"h2\",\"cores\":1}\n"
        "{\"event\":\"stage_start\",\"time_ms\":%lld,\"stage\":0,\"job\":0,"
        "\"name\":\"bad-stage\",\"tasks\":1}\n"
        "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":0,\"index\":0,"
        "\"attempt\":0,\"executor\":0,\"state\":\"FAILED\",\"outcome\":"
        "\"retried\",\"run_us\":900,\"error\":\"first\"}\n"
        "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":0,\"index\":0,"
        "\"attempt\":1,\"executor\":0,\"state\":\"FAILED\",\"outcome\":"
        "\"gave_up\",\"run_us\":800,\"error\":\"exit \\\"7\\\" & <boom>\"}\n"
        "{\"event\":\"executor_removed\",\"time_ms\":%lld,\"executor\":0,"
        "\"reason\":\"OOM_KILLED\"}\n"
        "{\"event\":\"stage_end\",\"time_ms\":%lld,\"stage\":0,\"state\":"
        "\"FAILED\"}\n"
        "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":\"FAILED\","
        "\"reason\":\"job failed: task 0 failed 2 times\"}\n",
        T0 + 60000, T0 + 60000, T0 + 60001, T0 + 60002, T0 + 60003, T0 + 60004,
        T0 + 60005, T0 + 60006, T0 + 60007);
    s_write (BAD, text);
    return 0;
}

static int
s_teardown (void **state)
{
    (void) state;
    hearth_rm_tree (s_dir);
    return 0;
}

static cJSON *
s_listing (const char *const *states, size_t nstates)
{
    hist_list_opts_t o = {.dir = s_dir,
                          .states = states,
                          .nstates = nstates,
                          .since_ms = -1,
                          .stale_ms = 3600000,
                          .no_index = true};
    int status;
    cJSON *doc = hist_list_json (&o, stderr, &status);
    assert_non_null (doc);
    assert_int_equal (status, 0);
    return doc;
}

static void
test_listing (void **state)
{
    (void) state;
    cJSON *doc = s_listing (NULL, 0);
    int status = 0;
    char *page =
        hearth_page_history_list (doc, "FAILED", "24h", "a\"b", NULL, &status);
    assert_non_null (page);
    assert_int_equal (status, 200);
    /* both, newest (BAD) first, each a link to its summary */
    const char *bad = strstr (page, "<tr data-id=\"" BAD "\">");
    const char *ok = strstr (page, "<tr data-id=\"" OK "\">");
    assert_non_null (bad);
    assert_non_null (ok);
    assert_true (bad < ok);
    assert_contains (page, "<a href=\"app/" OK "\">" OK "</a>");
    assert_contains (page, "<span class=\"st-FAILED\">FAILED</span>");
    assert_contains (page, "job failed: task 0 failed 2 times");
    assert_contains (page, "2026-12-01T09:30:00Z");
    /* escaped, never markup */
    assert_lacks (page, "<script>x");
    assert_contains (page, "&lt;script&gt;x&lt;/script&gt;");
    /* the form holds the request's values */
    assert_contains (page, "<option selected>FAILED</option>");
    assert_contains (page, "name=\"since\" placeholder=\"24h, 7d, "
                           "2026-12-01\" value=\"24h\"");
    assert_contains (page, "value=\"a&quot;b\"");
    assert_lacks (page, "<script>");
    free (page);
    cJSON_Delete (doc);
}

static void
test_listing_filtered_and_warned (void **state)
{
    (void) state;
    const char *states[] = {"finished"};
    cJSON *doc = s_listing (states, 1);
    int status = 0;
    char *page = hearth_page_history_list (doc, "finished,killed", NULL, NULL,
                                           "hearth-history: x/<y> is not an "
                                           "event log\n",
                                           &status);
    assert_non_null (page);
    assert_contains (page, "data-id=\"" OK "\"");
    assert_lacks (page, BAD);
    /* a comma list is kept as given, selected */
    assert_contains (page, "<option selected>finished,killed</option>");
    assert_contains (page, "<pre id=\"warnings\">hearth-history: x/&lt;y&gt;");
    free (page);
    cJSON_Delete (doc);
    /* no application at all: the "none" row */
    const char *none[] = {"KILLED"};
    doc = s_listing (none, 1);
    page = hearth_page_history_list (doc, NULL, NULL, NULL, NULL, &status);
    assert_non_null (page);
    assert_contains (page, "<tr class=\"none\"><td colspan=\"10\">none");
    assert_contains (page, "<option value=\"\">any</option>");
    free (page);
    cJSON_Delete (doc);
}

static cJSON *
s_app (const char *id, char **svg)
{
    hearth_error_t err;
    bool missing = true;
    cJSON *doc = hist_appview_doc (s_dir, id, 10, 3600000, svg, &missing, &err);
    if (!doc)
        fail_msg ("%s", err.text);
    return doc;
}

static void
test_app (void **state)
{
    (void) state;
    char *svg = NULL;
    cJSON *doc = s_app (OK, &svg);
    int status = 0;
    assert_non_null (svg);
    char *page = hearth_page_history_app (doc, svg, &status);
    assert_non_null (page);
    assert_int_equal (status, 200);
    assert_contains (page, "<title>Application " OK "</title>");
    assert_contains (page, "<a href=\"../\">all applications</a>");
    assert_contains (page, "<a href=\"../api/v1/apps/" OK "\">JSON</a>");
    assert_contains (page, "<table id=\"stages\">");
    /* stage 0: 2 tasks, none cached, 2 accepted, run p50 p95 max */
    assert_contains (page, "<td>scan-stage</td><td><span "
                           "class=\"st-SUCCEEDED\">SUCCEEDED</span></td>"
                           "<td>2</td><td>0</td><td>2</td><td>0</td>");
    assert_contains (page, "1.5ms 2.5ms 2.5ms");
    assert_contains (page, "<table id=\"accounting\">");
    assert_contains (page, "<td>max-failures</td><td>4</td>");
    assert_contains (page, "<span id=\"state\" class=\"st-FINISHED\">");
    /* the timeline: its SVG as given, two attempts on their lanes */
    assert_contains (page, "<h2>Timeline</h2>");
    assert_contains (page, svg);
    assert_contains (page, "<svg id=\"timeline\"");
    assert_contains (page, "data-drawn=\"2\"");
    assert_contains (page, "<rect class=\"task ok\" data-lane=\"");
    free (page);
    free (svg);
    cJSON_Delete (doc);

    doc = s_app (BAD, &svg);
    page = hearth_page_history_app (doc, svg, &status);
    assert_non_null (page);
    assert_contains (page, "<table id=\"failures\">");
    assert_contains (page, "exit &quot;7&quot; &amp; &lt;boom&gt;");
    assert_contains (page, "<td>gave_up</td>");
    assert_contains (page, "<td>OOM_KILLED</td>");
    assert_lacks (page, "<script>x");
    assert_lacks (page, "<boom>");
    assert_contains (page, "<rect class=\"task failed\"");
    free (page);
    free (svg);
    cJSON_Delete (doc);
    /* without a timeline: none on the page */
    doc = s_app (OK, NULL);
    page = hearth_page_history_app (doc, NULL, &status);
    assert_non_null (page);
    assert_lacks (page, "Timeline");
    free (page);
    cJSON_Delete (doc);
}

static void
test_missing (void **state)
{
    (void) state;
    hearth_error_t err;
    bool missing = false;
    assert_null (
        hist_appview_doc (s_dir, "app-nope", 10, 0, NULL, &missing, &err));
    assert_true (missing);
    assert_contains (err.text, "no application app-nope");
    missing = false;
    assert_null (hist_appview_doc ("/nonexistent-hist-dir", OK, 10, 0, NULL,
                                   &missing, &err));
    assert_false (missing);
    /* a document without an id: the 404 page */
    cJSON *doc = cJSON_CreateObject ();
    int status = 0;
    char *page = hearth_page_history_app (doc, NULL, &status);
    assert_non_null (page);
    assert_int_equal (status, 404);
    assert_contains (page, "No such application.");
    free (page);
    cJSON_Delete (doc);
}

/* A new directory sub of s_dir (its path into dir) and the log of id
   in it, open for writing. */
static FILE *
s_new_log (const char *sub, const char *id, char *dir, size_t size)
{
    char path[400];
    snprintf (dir, size, "%s/%s", s_dir, sub);
    assert_int_equal (mkdir (dir, 0700), 0);
    snprintf (path, sizeof path, "%s/%s.events", dir, id);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    return f;
}

/* A log of more attempts than the timeline draws: the last 5,000, the
   note says how many earlier ones are not drawn, the axis starts at the
   first drawn; each attempt on its executor's one core lane, as it ran
   (its end less its run_us), one after the other. */
static void
test_timeline_cut (void **state)
{
    (void) state;
    char dir[300];
    FILE *f = s_new_log ("big", "app-20261201093200-0003", dir, sizeof dir);
    fprintf (f,
             "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":2,"
             "\"app_id\":\"app-20261201093200-0003\",\"name\":\"big\"}\n"
             "{\"event\":\"executor_added\",\"time_ms\":%lld,"
             "\"executor\":0,\"host\":\"h\",\"cores\":1}\n",
             T0, T0);
    for (long long i = 0; i < 5003; i++)
        fprintf (f,
                 "{\"event\":\"task_end\",\"time_ms\":%lld,\"stage\":0,"
                 "\"index\":%lld,\"attempt\":0,\"executor\":0,"
                 "\"run_us\":1000}\n",
                 T0 + 1 + i, i);
    fprintf (f,
             "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":"
             "\"FINISHED\",\"reason\":\"done\"}\n",
             T0 + 5010);
    assert_int_equal (fclose (f), 0);
    hearth_error_t err;
    bool missing;
    char *svg = NULL;
    cJSON *doc = hist_appview_doc (dir, "app-20261201093200-0003", 10, 0, &svg,
                                   &missing, &err);
    if (!doc)
        fail_msg ("%s", err.text);
    assert_non_null (svg);
    assert_contains (svg, ">the last 5000 attempts (3 earlier not drawn)<");
    assert_contains (svg, "data-drawn=\"5000\"");
    assert_contains (svg, "<title>stage 0 task 3.0 on executor 0: ok, 1.0ms");
    assert_lacks (svg, "task 2.0 on");
    assert_lacks (svg, "data-lane=\"1\"");
    free (svg);
    cJSON_Delete (doc);
}

/* A resumed driver's log: the listing's document says resumed, the
   summary's too, and the page shows the skipped stage SKIPPED. */
static void
test_resumed (void **state)
{
    (void) state;
    char dir[300];
    FILE *f = s_new_log ("resumed", "app-r", dir, sizeof dir);
    fprintf (
        f,
        "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":2,"
        "\"app_id\":\"app-r\",\"name\":\"etl\"}\n"
        "{\"event\":\"app_resumed\",\"time_ms\":%lld,\"app\":\"app-r\","
        "\"outputs\":12}\n"
        "{\"event\":\"job_start\",\"time_ms\":%lld,\"job\":1,\"name\":"
        "\"etl\",\"stages\":2}\n"
        "{\"event\":\"stage_start\",\"time_ms\":%lld,\"job\":1,\"stage\":1,"
        "\"name\":\"map-stage\",\"attempt\":0,\"tasks\":8,\"cached\":8}\n"
        "{\"event\":\"stage_end\",\"time_ms\":%lld,\"job\":1,\"stage\":1,"
        "\"name\":\"map-stage\",\"state\":\"SUCCEEDED\",\"attempt\":0,"
        "\"tasks\":8,\"finished\":8,\"failed_attempts\":0}\n"
        "{\"event\":\"stage_skipped\",\"time_ms\":%lld,\"job\":1,\"stage\":"
        "1,\"name\":\"map-stage\",\"tasks\":8,\"reason\":\"held <still>\"}\n"
        "{\"event\":\"stage_start\",\"time_ms\":%lld,\"job\":1,\"stage\":2,"
        "\"name\":\"sum-stage\",\"attempt\":0,\"tasks\":0}\n"
        "{\"event\":\"stage_end\",\"time_ms\":%lld,\"job\":1,\"stage\":2,"
        "\"name\":\"sum-stage\",\"state\":\"SUCCEEDED\",\"attempt\":0,"
        "\"tasks\":0,\"finished\":0,\"failed_attempts\":0}\n"
        "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":\"FINISHED\","
        "\"reason\":\"its driver finished\"}\n",
        T0, T0 + 1, T0 + 2, T0 + 2, T0 + 2, T0 + 2, T0 + 3, T0 + 4, T0 + 5);
    assert_int_equal (fclose (f), 0);
    hist_list_opts_t o = {
        .dir = dir, .since_ms = -1, .stale_ms = 3600000, .no_index = true};
    int status;
    cJSON *list = hist_list_json (&o, stderr, &status);
    assert_non_null (list);
    const cJSON *row =
        cJSON_GetArrayItem (cJSON_GetObjectItem (list, "applications"), 0);
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (row, "resumed")));
    assert_int_equal (cJSON_GetObjectItem (row, "resumed_outputs")->valueint,
                      12);
    assert_string_equal (cJSON_GetObjectItem (row, "state")->valuestring,
                         "FINISHED");
    int lcode = 0;
    char *lpage =
        hearth_page_history_list (list, NULL, NULL, NULL, NULL, &lcode);
    assert_non_null (lpage);
    assert_contains (lpage, "<span class=\"st-FINISHED\">FINISHED</span> "
                            "(resumed)</td>");
    free (lpage);
    cJSON_Delete (list);
    hearth_error_t err;
    bool missing;
    cJSON *doc = hist_appview_doc (dir, "app-r", 10, 0, NULL, &missing, &err);
    if (!doc)
        fail_msg ("%s", err.text);
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (doc, "resumed")));
    assert_int_equal (cJSON_GetObjectItem (doc, "resumed_outputs")->valueint,
                      12);
    assert_int_equal (cJSON_GetObjectItem (doc, "stages_skipped")->valueint, 1);
    const cJSON *st = cJSON_GetObjectItem (doc, "stages");
    const cJSON *s1 = cJSON_GetArrayItem (st, 0),
                *s2 = cJSON_GetArrayItem (st, 1);
    assert_string_equal (cJSON_GetObjectItem (s1, "state")->valuestring,
                         "SKIPPED");
    assert_string_equal (cJSON_GetObjectItem (s1, "skip_reason")->valuestring,
                         "held <still>");
    assert_false (cJSON_IsTrue (cJSON_GetObjectItem (s2, "skipped")));
    assert_true (cJSON_IsNull (cJSON_GetObjectItem (s2, "skip_reason")));
    int code = 0;
    char *page = hearth_page_history_app (doc, NULL, &code);
    assert_non_null (page);
    assert_int_equal (code, 200);
    /* the reason on hover (escaped), the summary saying the resumption */
    assert_contains (page, "<td>map-stage</td><td title=\"held "
                           "&lt;still&gt;\"><span "
                           "class=\"st-SKIPPED\">SKIPPED</span></td>"
                           "<td>8</td><td>8</td><td>0</td>");
    assert_contains (page, "12 outputs of earlier drivers reused, 1 stages "
                           "skipped");
    assert_contains (page, "<td>sum-stage</td><td><span "
                           "class=\"st-SUCCEEDED\">SUCCEEDED</span></td>");
    free (page);
    cJSON_Delete (doc);
}

int
main (void)
{
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_listing),
        cmocka_unit_test (test_listing_filtered_and_warned),
        cmocka_unit_test (test_app),
        cmocka_unit_test (test_missing),
        cmocka_unit_test (test_timeline_cut),
        cmocka_unit_test (test_resumed),
    };
    return cmocka_run_group_tests (tests, s_setup, s_teardown);
}
