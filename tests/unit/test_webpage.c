/*  test_webpage.c - unit tests of the HTML pages (libcore/webpage*.c)
    on documents built here: every row present, values escaped (names
    with <script>, quotes, ampersands; javascript: URLs never links),
    progress shown (and "-" before the first report), 404 for an unknown
    application or log, the log page's bytes and part links, and a master
    page of 1,000 workers. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/webpage.h"
#include "tests/unit/testutil.h"

#define WA "worker-20261201093000-node1-4242"
#define WB "worker-20261201093000-node2-4343"
#define APP "app-20261201093000-0001"
#define DONE "app-20261201093000-0002"
#define DRV "driver-20261201093000-0001"
/* 2026-12-01T09:30:00Z */
#define T0 1796117400000.0

/* Fail unless text does not contain needle. */
#define assert_lacks(text, needle)                                             \
    do {                                                                       \
        if (strstr ((text), (needle)))                                         \
            fail_msg ("page contains '%s'", (needle));                         \
    } while (0)

static size_t
s_count (const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr (text, needle); p;
         p = strstr (p + strlen (needle), needle))
        n++;
    return n;
}

static cJSON *
s_parse (const char *text)
{
    cJSON *doc = cJSON_Parse (text);
    assert_non_null (doc);
    return doc;
}

/* A master's state: two workers (B drained and without pages), a running
   application with progress and one executor on A, a completed one, a
   cluster-mode driver on A. */
static cJSON *
s_state (bool progress)
{
    char text[8192];
    snprintf (
        text, sizeof text,
        "{\"status\":\"ALIVE\",\"url\":\"tcp://10.0.0.9:7077\","
        "\"web_url\":\"http://10.0.0.9:8080\",\"started_ms\":%.0f,"
        "\"time_ms\":%.0f,"
        "\"workers\":[{\"id\":\"" WA "\",\"host\":\"10.0.0.1\","
        "\"state\":\"ALIVE\",\"cores\":8,\"cores_used\":2,\"memory_mb\":"
        "16384,\"memory_used_mb\":2048,\"heartbeat_age_ms\":1200,"
        "\"executors\":1,\"web_url\":\"http://10.0.0.1:8081\"},"
        "{\"id\":\"" WB "\",\"host\":\"10.0.0.2\",\"state\":\"ALIVE\","
        "\"draining\":true,\"cores\":4,\"cores_used\":0,\"memory_mb\":8192,"
        "\"memory_used_mb\":0,\"heartbeat_age_ms\":300,\"executors\":0}],"
        "\"apps\":[{\"id\":\"" APP "\",\"name\":\"wordcount\",\"state\":"
        "\"RUNNING\",\"cores_granted\":2,\"memory_per_executor_mb\":1024,"
        "\"submit_ms\":%.0f,\"user\":\"ann\",%s"
        "\"executors\":[{\"app_id\":\"" APP "\",\"exec_id\":3,\"worker_id\":"
        "\"" WA "\",\"host\":\"10.0.0.1\",\"cores\":2,\"memory_mb\":1024,"
        "\"state\":\"RUNNING\"}]},"
        "{\"id\":\"" DONE "\",\"name\":\"sort\",\"state\":\"FAILED\","
        "\"reason\":\"task 4 failed 4 times\",\"cores_granted\":0,"
        "\"submit_ms\":%.0f,\"end_ms\":%.0f,\"executors\":[],"
        "\"ended_executors\":[{\"exec_id\":0,\"worker_id\":\"" WA "\","
        "\"host\":\"10.0.0.1\",\"state\":\"FAILED\",\"signal\":9,"
        "\"message\":\"killed by signal 9\",\"end_ms\":1796117360000},"
        "{\"exec_id\":1,\"worker_id\":\"worker-gone\",\"host\":\"10.0.0.3\","
        "\"state\":\"FAILED\",\"exit_status\":137,\"exit_reason\":"
        "\"OOM_KILLED\",\"message\":\"<over 512 MiB>\"}]}],"
        "\"drivers\":[{\"id\":\"" DRV "\",\"name\":\"etl\",\"app\":\"x\","
        "\"state\":\"RUNNING\",\"cores\":1,\"memory_mb\":512,\"worker_id\":"
        "\"" WA "\",\"app_id\":\"" APP "\",\"submit_ms\":%.0f}]}",
        T0 - 3600e3, T0, T0 - 90e3,
        progress ? "\"progress\":{\"time_ms\":1,\"jobs_active\":1,"
                   "\"persisted\":{\"memory_bytes\":3145728,\"executors\":"
                   "[{\"executor\":0,\"memory_bytes\":3145728}]},"
                   "\"tasks_finished\":57,\"tasks_failed\":1,"
                   "\"tasks_running\":4,\"stages\":[{\"job\":0,\"stage\":2,"
                   "\"name\":\"map at wc.c:10\",\"tasks\":100,\"finished\":"
                   "57,\"running\":4,\"failed\":1}],\"waiting\":[{\"job\":0,"
                   "\"stage\":3,\"name\":\"<reduce>\",\"tasks\":8,"
                   "\"finished\":0,\"running\":0,\"failed\":0}],"
                   "\"completed\":[{\"job\":0,\"stage\":1,\"name\":\"read\","
                   "\"tasks\":20,\"finished\":20,\"running\":0,\"failed\":"
                   "2}]},"
                 : "",
        T0 - 600e3, T0 - 540e3, T0 - 100e3);
    return s_parse (text);
}

static void
test_master_rows (void **state)
{
    (void) state;
    cJSON *doc = s_state (true);
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<!DOCTYPE html>");
    assert_contains (html, "<link rel=\"icon\" href=\"data:,\">");
    assert_contains (html, "<b>Status:</b> ALIVE");
    assert_contains (html, "<b>URL:</b> tcp://10.0.0.9:7077");
    assert_contains (html, "<b>Uptime:</b> 1h00m");
    assert_contains (html, "<b>Workers:</b> 2 alive of 2");
    assert_contains (html, "<b>Cores:</b> 2 / 12");
    /* Every worker; A linked to its pages, B (drained) DRAINING. */
    assert_contains (html, "<tr data-id=\"" WA "\">");
    assert_contains (html, "<tr data-id=\"" WB "\">");
    assert_contains (html, "<a href=\"http://10.0.0.1:8081\">" WA "</a>");
    assert_contains (html, "<td>" WB "</td>");
    assert_contains (html, "<span class=\"st-DRAINING\">DRAINING</span>");
    assert_contains (html, "<td>2 / 8</td><td>2048 / 16384 MiB</td>"
                           "<td>1.2s ago</td><td>1</td>");
    /* The running application: link, submitted, duration, progress. */
    assert_contains (html, "<a href=\"/app/" APP "\">" APP "</a>");
    assert_contains (html, "<td>wordcount</td>");
    assert_contains (html, "<td>2026-12-01T09:28:30Z</td><td>1m30s</td>");
    assert_contains (html, "<td>1024 MiB</td><td>1</td>");
    assert_contains (html, "<span class=\"done\">57</span> tasks done, 4 "
                           "running, 1 failed");
    assert_contains (html, "stage 2 map at wc.c:10: ");
    assert_contains (html, "57/100 (+4 running) (1 failed)");
    /* what its executors keep in memory for persisted stages */
    assert_contains (html, "persisted in memory: 3.0 MiB");
    /* The completed one, with its final state and reason. */
    assert_contains (html, "<td>1m00s</td><td><span class=\"st-FAILED\">"
                           "FAILED</span></td><td>task 4 failed 4 times</td>");
    /* The driver's logs on its worker. */
    assert_contains (html, "<a href=\"http://10.0.0.1:8081/logpage?driver=" DRV
                           "&amp;stream=stderr\">stderr</a>");
    /* Inline only: no external script, style or image. */
    assert_lacks (html, "<script src");
    assert_lacks (html, "stylesheet");
    assert_lacks (html, "<img");
    assert_int_equal (s_count (html, "<tr"), s_count (html, "</tr>"));
    free (html);
    cJSON_Delete (doc);
}

static void
test_master_no_progress (void **state)
{
    (void) state;
    cJSON *doc = s_state (false);
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    /* no progress, and no wait: "-" both */
    assert_contains (html,
                     "<td>1024 MiB</td><td>1</td><td>-</td><td>-</td></tr>");
    assert_lacks (html, "class=\"done\"");
    free (html);
    cJSON_Delete (doc);
}

static void
test_master_empty (void **state)
{
    (void) state;
    cJSON *doc = s_parse ("{\"status\":\"RECOVERING\",\"workers\":[]}");
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<b>Status:</b> RECOVERING");
    assert_contains (html, "<b>Uptime:</b> -");
    /* Four tables, each with its "none" row. */
    assert_int_equal (s_count (html, "<tr class=\"none\">"), 4);
    free (html);
    cJSON_Delete (doc);
}

/* Values that would be markup: every one shown as text. */
static const char s_evil[] =
    "{\"status\":\"<b>\",\"url\":\"a&b\",\"time_ms\":1,"
    "\"workers\":[{\"id\":\"<script>alert(1)</script>\",\"host\":"
    "\"h\\\"onmouseover=\\\"x\",\"state\":\"ALIVE\",\"web_url\":"
    "\"javascript:alert(2)\"},{\"id\":\"w'2\",\"state\":\"DEAD\","
    "\"web_url\":\"http://x/\\\"><script>alert(3)</script>\"}],"
    "\"apps\":[{\"id\":\"a\\\"&<\",\"name\":\"<img src=x onerror=y>\","
    "\"state\":\"RUNNING\",\"progress\":{\"stages\":[{\"name\":"
    "\"</td><script>\"}]},\"executors\":[{\"exec_id\":1,\"worker_id\":"
    "\"w'2\",\"state\":\"<i>\",\"exit_reason\":\"&amp;\"}]}],"
    "\"drivers\":[{\"id\":\"d&<>\",\"state\":\"RUNNING\",\"worker_id\":"
    "\"w'2\"}]}";

static void
test_escaping (void **state)
{
    (void) state;
    cJSON *doc = s_parse (s_evil);
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    /* The page's own script is the only one. */
    assert_int_equal (s_count (html, "<script"), 1);
    assert_lacks (html, "<img");
    assert_lacks (html, "<b>\"");
    assert_lacks (html, "javascript:");
    assert_contains (html, "<b>Status:</b> &lt;b&gt;");
    assert_contains (html, "<b>URL:</b> a&amp;b");
    assert_contains (html, "&lt;script&gt;alert(1)&lt;/script&gt;");
    assert_contains (html, "<td>h&quot;onmouseover=&quot;x</td>");
    assert_contains (html, "<tr data-id=\"w&#39;2\">");
    assert_contains (html, "<a href=\"http://x/&quot;&gt;&lt;script&gt;");
    assert_contains (html, "<a href=\"/app/a%22%26%3C\">a&quot;&amp;&lt;</a>");
    assert_contains (html, "&lt;img src=x onerror=y&gt;");
    assert_contains (html, "&lt;/td&gt;&lt;script&gt;");
    assert_contains (html, "/logpage?driver=d%26%3C%3E&amp;stream=stdout");
    free (html);

    html = hearth_page_app (doc, "a\"&<", NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_int_equal (s_count (html, "<script"), 1);
    assert_contains (html, "data-app=\"a&quot;&amp;&lt;\"");
    assert_contains (html, "<span class=\"st-&lt;i&gt;\">&lt;i&gt;</span>");
    assert_contains (html, "<td>&amp;amp;</td>");
    assert_contains (html, "logpage?app=a%22%26%3C&amp;exec=1&amp;stream=");
    free (html);

    html = hearth_page_app (doc, "<script>", NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 404);
    assert_int_equal (s_count (html, "<script"), 0);
    assert_contains (html, "knows no application &lt;script&gt;");
    free (html);
    cJSON_Delete (doc);
}

static void
test_app_page (void **state)
{
    (void) state;
    cJSON *doc = s_state (true);
    int status = 0;
    /* the live timeline as given (timeline.c escapes its text), above
       the stages; none yet: said so */
    char *html = hearth_page_app (doc, APP, "<svg id=\"timeline\"></svg>",
                                  false, &status);
    assert_contains (html, "<h2>Timeline</h2>\n<div id=\"timeline-box\">"
                           "<svg id=\"timeline\"></svg></div>");
    assert_true (strstr (html, "timeline-box")
                 < strstr (html, "id=\"stages\""));
    free (html);
    html = hearth_page_app (doc, APP, NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<p id=\"timeline-none\">No timeline yet");
    assert_null (strstr (html, "timeline-box"));
    assert_contains (html, "<title>Application " APP "</title>");
    assert_contains (html, "data-page=\"app\" data-app=\"" APP "\"");
    assert_contains (html, "<b>User:</b> ann");
    assert_contains (html, "<b>Duration:</b> 1m30s");
    /* The active stage and the executor with its worker and logs. */
    assert_contains (html, "<td>0</td><td>2</td><td>map at wc.c:10</td>"
                           "<td>100</td><td>57</td><td>4</td><td>1</td>");
    /* The stages waiting for their parents and those completed, each in
       its table (a name escaped). */
    assert_contains (html, "<table id=\"stages-waiting\"");
    assert_contains (html, "<td>0</td><td>3</td><td>&lt;reduce&gt;</td>"
                           "<td>8</td><td>0</td><td>0</td><td>0</td>");
    assert_contains (html, "<table id=\"stages-completed\"");
    assert_contains (html, "<td>0</td><td>1</td><td>read</td>"
                           "<td>20</td><td>20</td><td>0</td><td>2</td>");
    assert_true (strstr (html, "<table id=\"stages-waiting\"")
                 < strstr (html, "&lt;reduce&gt;"));
    assert_true (strstr (html, "&lt;reduce&gt;")
                 < strstr (html, "<table id=\"stages-completed\""));
    assert_contains (html, "<tr data-id=\"3\"><td>3</td><td><a href=\"http:"
                           "//10.0.0.1:8081\">" WA "</a></td>");
    assert_contains (html, "<span class=\"st-RUNNING\">RUNNING</span></td>"
                           "<td>-</td>");
    assert_contains (html, "<a href=\"http://10.0.0.1:8081/logpage?app=" APP
                           "&amp;exec=3&amp;stream=stdout\">stdout</a>");
    free (html);

    html = hearth_page_app (doc, DONE, NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<b>State:</b> FAILED");
    assert_contains (html, "<b>Reason:</b> task 4 failed 4 times");
    /* no stage of any kind, no executor running */
    assert_int_equal (s_count (html, "<tr class=\"none\">"), 4);
    /* The ended executors: how each ended, its worker and logs (none
       linked for a worker the master no longer lists). */
    assert_contains (html, "<table id=\"executors-ended\"");
    assert_contains (html, "<tr data-id=\"0\"><td>0</td><td><a href=\"http:"
                           "//10.0.0.1:8081\">" WA "</a></td><td>10.0.0.1"
                           "</td><td><span class=\"st-FAILED\">FAILED</span>"
                           "</td><td>signal 9</td><td>killed by signal 9</td>"
                           "<td>2026-12-01T");
    assert_contains (html, "<a href=\"http://10.0.0.1:8081/logpage?app=" DONE
                           "&amp;exec=0&amp;stream=stderr\">stderr</a>");
    assert_contains (html, "<td>worker-gone</td><td>10.0.0.3</td>");
    assert_contains (html, "<td>status 137</td><td>OOM_KILLED: &lt;over 512 "
                           "MiB&gt;</td><td>-</td>");
    free (html);

    html = hearth_page_app (doc, "app-nope", NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 404);
    assert_contains (html, "knows no application app-nope");
    free (html);
    html = hearth_page_app (doc, NULL, NULL, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 404);
    free (html);
    cJSON_Delete (doc);
}

/* With kill (docs/operations.md, "Killing from the pages"): a (kill)
   link beside the running application and the running driver on the
   master's page, none beside the completed application, body's
   data-kill; a Kill button on the running application's page, none on
   the ended one's; without kill, none of them. */
static void
test_kill_links (void **state)
{
    (void) state;
    cJSON *doc = s_state (true);
    int status = 0;
    char *html = hearth_page_master (doc, true, &status);
    assert_non_null (html);
    assert_contains (html, "data-page=\"master\" data-kill=\"1\">");
    assert_contains (html, "<td><a href=\"/app/" APP "\">" APP "</a> <a "
                           "class=\"kill\" href=\"/app/" APP
                           "/confirm-kill\">(kill)</a></td>");
    assert_contains (html, "<td>" DRV " <a class=\"kill\" href=\"/driver/" DRV
                           "/confirm-kill\">(kill)</a></td>");
    assert_contains (html, "<td><a href=\"/app/" DONE "\">" DONE "</a></td>");
    assert_lacks (html, "/app/" DONE "/confirm-kill");
    free (html);
    html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    assert_lacks (html, "data-kill=\"1\"");
    assert_lacks (html, "confirm-kill\">");
    free (html);
    html = hearth_page_app (doc, APP, NULL, true, &status);
    assert_non_null (html);
    assert_contains (html, "<form id=\"actions\" class=\"actions\" "
                           "method=\"get\" action=\"/app/" APP
                           "/confirm-kill\"><button type=\"submit\" "
                           "class=\"kill\">Kill</button></form>");
    free (html);
    html = hearth_page_app (doc, DONE, NULL, true, &status);
    assert_non_null (html);
    assert_lacks (html, "id=\"actions\"");
    free (html);
    html = hearth_page_app (doc, APP, NULL, false, &status);
    assert_non_null (html);
    assert_lacks (html, "id=\"actions\"");
    free (html);
    cJSON_Delete (doc);
}

/* The confirmation page: what is killed, what a kill does, the form
   that POSTs to its path with the value (escaped), no script; an ended
   one says so, with no form; an unknown one is 404.  The result page
   says what happened and links back. */
static void
test_kill_pages (void **state)
{
    (void) state;
    cJSON *doc = s_state (false);
    int status = 0;
    char path[128];
    assert_string_equal (
        hearth_page_kill_path (HEARTH_PAGE_APP, APP, path, sizeof path),
        "/app/" APP "/kill");
    char *html = hearth_page_kill_confirm (doc, HEARTH_PAGE_APP, APP, "csrf",
                                           "v<\"", &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<title>Kill application " APP "?</title>");
    assert_contains (html, "<b>Name:</b> wordcount");
    assert_contains (html, "<b>State:</b> RUNNING");
    assert_contains (html, "as hearth-admin kill does");
    assert_contains (html, "<form id=\"kill-form\" class=\"actions\" "
                           "method=\"post\" action=\"/app/" APP "/kill\">"
                           "<input type=\"hidden\" name=\"csrf\" "
                           "value=\"v&lt;&quot;\"><button type=\"submit\" "
                           "id=\"kill\" class=\"kill\">Kill this "
                           "application</button><a href=\"/app/" APP
                           "\">Cancel</a></form>");
    assert_int_equal (s_count (html, "<script"), 0);
    free (html);
    html = hearth_page_kill_confirm (doc, HEARTH_PAGE_DRIVER, DRV, "csrf", "v",
                                     &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<b>Worker:</b> " WA);
    assert_contains (html, "action=\"/driver/" DRV "/kill\"");
    free (html);
    html = hearth_page_kill_confirm (doc, HEARTH_PAGE_APP, DONE, "csrf", "v",
                                     &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "has ended (FAILED): there is nothing to kill");
    assert_lacks (html, "<form");
    free (html);
    html = hearth_page_kill_confirm (doc, HEARTH_PAGE_APP, "app-<x>", "csrf",
                                     "v", &status);
    assert_non_null (html);
    assert_int_equal (status, 404);
    assert_contains (html, "knows no application app-&lt;x&gt;");
    assert_lacks (html, "<form");
    free (html);
    html = hearth_page_kill_result (HEARTH_PAGE_APP, APP, "Killed <now>.");
    assert_non_null (html);
    assert_contains (html, "<p id=\"result\">Killed &lt;now&gt;.</p>");
    assert_contains (html, "href=\"/app/" APP "\">Back to the application");
    assert_contains (html, "<a href=\"/\">Back to the master</a>");
    free (html);
    cJSON_Delete (doc);
}

/* A waiting application and a waiting driver: why, "REASON (CODE)",
   escaped, in the Waiting column of each table and on the application's
   page; a running application without one shows "-". */
static void
test_waiting_shown (void **state)
{
    (void) state;
    cJSON *doc = s_parse (
        "{\"status\":\"ALIVE\",\"time_ms\":1796117400000,\"workers\":[],"
        "\"apps\":[{\"id\":\"" APP "\",\"name\":\"big\",\"state\":"
        "\"WAITING\",\"cores_granted\":0,\"memory_per_executor_mb\":65536,"
        "\"submit_ms\":1796117300000,\"executors\":[],\"waiting\":"
        "{\"code\":\"too_much_memory\",\"reason\":\"asks 64 GiB per "
        "executor; the largest worker offers <2> GiB\"}}],"
        "\"drivers\":[{\"id\":\"" DRV "\",\"name\":\"etl\",\"app\":\"x\","
        "\"state\":\"SUBMITTED\",\"cores\":8,\"memory_mb\":512,"
        "\"submit_ms\":1796117300000,\"waiting\":{\"code\":"
        "\"too_many_cores\",\"reason\":\"asks 8 cores for the driver; "
        "the most any worker has is 2\"}}]}");
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    assert_contains (html, "<td>-</td><td>asks 64 GiB per executor; the "
                           "largest worker offers &lt;2&gt; GiB "
                           "(too_much_memory)</td></tr>");
    assert_contains (html, "<td>asks 8 cores for the driver; the most any "
                           "worker has is 2 (too_many_cores)</td></tr>");
    free (html);
    html = hearth_page_app (doc, APP, NULL, false, &status);
    assert_non_null (html);
    assert_contains (html, "<b>Waiting:</b> asks 64 GiB per executor; the "
                           "largest worker offers &lt;2&gt; GiB "
                           "(too_much_memory)");
    free (html);
    cJSON_Delete (doc);
}

/* A worker's state: a running executor, an ended one, an ended driver. */
static const char s_wstate[] =
    "{\"id\":\"" WA "\",\"host\":\"node1\",\"state\":\"REGISTERED\","
    "\"master\":\"tcp://10.0.0.9:7077\",\"web_url\":\"http://10.0.0.1:8081\","
    "\"master_web_url\":\"http://10.0.0.9:8080\",\"started_ms\":"
    "1796117000000,\"time_ms\":1796117400000,\"cores\":8,\"cores_used\":2,"
    "\"memory_mb\":16384,\"memory_used_mb\":1024,\"shuffle_bytes\":2048,"
    "\"persisted_bytes\":1024,"
    "\"executors\":[{\"app_id\":\"" APP "\",\"exec_id\":3,\"cores\":2,"
    "\"memory_mb\":1024,\"state\":\"RUNNING\",\"pid\":4711,\"started_ms\":"
    "1796117390000,\"stdout_bytes\":10,\"stderr_bytes\":3072},"
    "{\"app_id\":\"" DONE "\",\"exec_id\":0,\"cores\":1,\"memory_mb\":512,"
    "\"state\":\"FAILED\",\"pid\":4700,\"started_ms\":1796117300000,"
    "\"ended_ms\":1796117360000,\"exit_reason\":\"exit status 3\","
    "\"stdout_bytes\":0,\"stderr_bytes\":0}],"
    "\"drivers\":[{\"driver_id\":\"" DRV "\",\"state\":\"FINISHED\","
    "\"cores\":1,\"memory_mb\":512,\"pid\":4600,\"started_ms\":"
    "1796117100000,\"ended_ms\":1796117200000,\"exit_reason\":\"exit "
    "status 0\"}]}";

/* The text of the cell under the header col of the first row of the
   table id in html, tags stripped, into buf ("" when there is none). */
static void
s_cell (const char *html, const char *id, const char *col, char *buf,
        size_t size)
{
    char want[64];
    snprintf (want, sizeof want, "<table id=\"%s\">", id);
    const char *p = strstr (html, want), *end;
    int at = -1, n = 0;
    buf[0] = '\0';
    for (p = p ? strstr (p, "<th>") : NULL; p && at < 0;
         p = strstr (p, "<th>"), n++) {
        p += 4;
        end = strstr (p, "</th>");
        if (end && (size_t) (end - p) == strlen (col)
            && strncmp (p, col, strlen (col)) == 0)
            at = n;
    }
    p = at >= 0 ? strstr (p, "<tr data-id=") : NULL;
    for (n = 0; p && n <= at; n++)
        p = strstr (p + 1, "<td");
    if (!p || !(p = strchr (p, '>')) || !(end = strstr (p, "</td>")))
        return;
    size_t o = 0;
    for (bool tag = false; ++p < end && o + 1 < size;) {
        if (*p == '<' || *p == '>')
            tag = *p == '<';
        else if (!tag)
            buf[o++] = *p;
    }
    buf[o] = '\0';
}

static void
test_worker_page (void **state)
{
    (void) state;
    cJSON *doc = s_parse (s_wstate);
    int status = 0;
    char *html = hearth_page_worker (doc, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "data-page=\"worker\"");
    assert_contains (html, "<b>Master:</b> <a href=\"http://10.0.0.9:8080\">"
                           "tcp://10.0.0.9:7077</a>");
    assert_contains (html, "<b>Uptime:</b> 6m40s");
    assert_contains (html, "<b>Shuffle:</b> 2K");
    assert_contains (html, "<b>Persisted:</b> 1K"); /* of it, issue 38 */
    assert_contains (html, "<tr data-id=\"" APP "/3\"><td><a href=\"http://"
                           "10.0.0.9:8080/app/" APP "\">" APP "</a></td>"
                           "<td>3</td><td>2</td><td>1024 MiB</td>");
    assert_contains (html, "<td>4711</td><td>2026-12-01T09:29:50Z</td>"
                           "<td>10.0s</td><td>-</td><td>10 / 3K</td>");
    assert_contains (html, "<a href=\"/logpage?app=" APP
                           "&amp;exec=3&amp;stream=stderr\">stderr</a>");
    /* Ended ones stay, with their reason and their lifetime. */
    assert_contains (html, "<td>1m00s</td><td>exit status 3</td>");
    assert_contains (html, "<tr data-id=\"" DRV "\"><td>" DRV "</td><td>-"
                           "</td>");
    assert_contains (html, "<td>1m40s</td><td>exit status 0</td>");
    assert_contains (html, "<a href=\"/logpage?driver=" DRV
                           "&amp;stream=stdout\">stdout</a>");
    /* each column's header over its cells (the drivers' were shifted:
       State over the cores, Cores over the memory, Memory over the
       state) */
    static const char *const cells[][3] = {
        {"executors", "State", "RUNNING"},
        {"executors", "Cores", "2"},
        {"executors", "Memory", "1024 MiB"},
        {"drivers", "State", "FINISHED"},
        {"drivers", "Cores", "1"},
        {"drivers", "Memory", "512 MiB"},
        {"drivers", "PID", "4600"},
        {"drivers", "Exit reason", "exit status 0"}};
    for (size_t i = 0; i < sizeof cells / sizeof cells[0]; i++) {
        char got[128];
        s_cell (html, cells[i][0], cells[i][1], got, sizeof got);
        if (strcmp (got, cells[i][2]) != 0)
            fail_msg ("%s: under %s: '%s', not '%s'", cells[i][0], cells[i][1],
                      got, cells[i][2]);
    }
    free (html);
    cJSON_Delete (doc);
}

static void
test_log_page (void **state)
{
    (void) state;
    cJSON *doc = s_parse (s_wstate);
    static const char bytes[] = "line <1> & \"two\"\n\0tail";
    int status = 0;
    char *html = hearth_page_log (doc, APP " executor 3", "stdout", bytes,
                                  sizeof bytes - 1, 100000, 300000,
                                  "app=" APP "&exec=3&stream=stdout", &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_contains (html, "<title>stdout of " APP " executor 3</title>");
    assert_contains (html, "<pre id=\"log\">line &lt;1&gt; &amp; &quot;two"
                           "&quot;\n&#xFFFD;tail</pre>");
    const char *q = "/logpage?app=" APP "&amp;exec=3&amp;stream=stdout";
    char link[256];
    snprintf (link, sizeof link,
              "%s&amp;offset=34464&amp;length=65536\">"
              "previous</a>",
              q);
    assert_contains (html, link);
    snprintf (link, sizeof link,
              "%s&amp;offset=100022&amp;length=65536\">"
              "next</a>",
              q);
    assert_contains (html, link);
    snprintf (link, sizeof link,
              "%s&amp;offset=-65536&amp;length=65536\">"
              "last</a>",
              q);
    assert_contains (html, link);
    assert_contains (html, "bytes 100000-100022 of 300000");
    assert_int_equal (s_count (html, "<script"), 0);
    free (html);

    /* The whole file: no previous, no next. */
    html = hearth_page_log (NULL, "d", "stderr", "x", 1, 0, 1, "driver=d",
                            &status);
    assert_non_null (html);
    assert_lacks (html, "previous");
    assert_lacks (html, "next");
    assert_contains (html, "/logpage?driver=d&amp;offset=-65536");
    free (html);

    /* Near the start: previous asks only for what is before. */
    html = hearth_page_log (NULL, "d", "stderr", "x", 1, 1000, 2000, "driver=d",
                            &status);
    assert_non_null (html);
    assert_contains (html, "offset=0&amp;length=1000\">previous</a>");
    free (html);

    html = hearth_page_log (doc, "d\"<", "stderr", NULL, 0, 0, 0, "driver=d&<",
                            &status);
    assert_non_null (html);
    assert_int_equal (status, 404);
    assert_contains (html, "no such log");
    assert_contains (html, "stderr of d&quot;&lt;");
    free (html);
    cJSON_Delete (doc);
}

/* 1,000 workers, 200 applications: every row rendered. */
static void
test_large (void **state)
{
    (void) state;
    cJSON *doc = cJSON_CreateObject ();
    cJSON *workers = cJSON_AddArrayToObject (doc, "workers");
    cJSON *apps = cJSON_AddArrayToObject (doc, "apps");
    assert_non_null (apps);
    for (int i = 0; i < 1000; i++) {
        char id[64], url[64];
        snprintf (id, sizeof id, "worker-20261201093000-node%d-%d", i, i);
        snprintf (url, sizeof url, "http://10.0.%d.%d:8081", i / 256, i % 256);
        cJSON *w = cJSON_CreateObject ();
        cJSON_AddStringToObject (w, "id", id);
        cJSON_AddStringToObject (w, "state", i % 10 ? "ALIVE" : "DEAD");
        cJSON_AddStringToObject (w, "web_url", url);
        cJSON_AddNumberToObject (w, "cores", 16);
        cJSON_AddItemToArray (workers, w);
    }
    for (int i = 0; i < 200; i++) {
        char id[64];
        snprintf (id, sizeof id, "app-20261201093000-%04d", i);
        cJSON *a = cJSON_CreateObject ();
        cJSON_AddStringToObject (a, "id", id);
        cJSON_AddStringToObject (a, "state", i % 2 ? "RUNNING" : "FINISHED");
        cJSON_AddItemToArray (apps, a);
    }
    int status = 0;
    char *html = hearth_page_master (doc, false, &status);
    assert_non_null (html);
    assert_int_equal (status, 200);
    assert_int_equal (s_count (html, "<tr data-id=\"worker-"), 1000);
    assert_int_equal (s_count (html, "<tr data-id=\"app-"), 200);
    assert_int_equal (s_count (html, "class=\"st-DEAD\""), 100);
    assert_contains (html, "<b>Workers:</b> 900 alive of 1000");
    assert_contains (html, "<b>Cores:</b> 0 / 14400");
    assert_contains (html, "<b>Applications:</b> 100 running, 100 completed");
    assert_contains (html, "worker-20261201093000-node999-999");
    assert_contains (html, "</html>");
    free (html);
    cJSON_Delete (doc);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_master_rows),
        cmocka_unit_test (test_master_no_progress),
        cmocka_unit_test (test_master_empty),
        cmocka_unit_test (test_escaping),
        cmocka_unit_test (test_app_page),
        cmocka_unit_test (test_waiting_shown),
        cmocka_unit_test (test_worker_page),
        cmocka_unit_test (test_log_page),
        cmocka_unit_test (test_large),
        cmocka_unit_test (test_kill_links),
        cmocka_unit_test (test_kill_pages),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
