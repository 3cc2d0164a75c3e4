/*  test_timeline.c - the timeline's SVG (libcore/timeline.h): lanes never
    overlap and stay within an executor's cores when the attempts fit,
    the output is bounded whatever the input, user text is escaped, what
    is left out is said, and an empty application draws a short note. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "libcore/timeline.h"
#include "tests/unit/testutil.h"

#define assert_lacks(text, needle)                                             \
    do {                                                                       \
        if (strstr ((text), (needle)))                                         \
            fail_msg ("output contains '%s'", (needle));                       \
    } while (0)

/* The SVG of tl (caller frees). */
static char *
s_svg (const hearth_tl_t *tl)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream (&buf, &len);
    assert_non_null (out);
    assert_int_equal (hearth_timeline_svg (tl, out), 0);
    assert_int_equal (fclose (out), 0);
    assert_non_null (buf);
    return buf;
}

static size_t
s_count (const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr (text, needle); p; p = strstr (p + 1, needle))
        n++;
    return n;
}

/* Fail when two attempts of one executor's lane overlap (as drawn:
   from their drawn start). */
static void
s_check_lanes (const hearth_tl_t *tl, const int *lane, const int64_t *from)
{
    for (size_t i = 0; i < tl->ntasks; i++)
        for (size_t j = i + 1; j < tl->ntasks; j++) {
            const hearth_tl_task_t *a = &tl->tasks[i], *b = &tl->tasks[j];
            if (lane[i] < 0 || lane[i] != lane[j] || a->exec_id != b->exec_id)
                continue;
            if (from[i] < b->end_us && from[j] < a->end_us)
                fail_msg ("tasks %zu and %zu overlap on lane %d", i, j,
                          lane[i]);
        }
}

/* Attempts that a real executor could run: each of an executor's cores
   runs one after the other with gaps, in a shuffled order. */
static void
test_lanes (void **state)
{
    (void) state;
    static const hearth_tl_exec_t execs[] = {
        {.id = 0, .cores = 2, .added_us = 0, .removed_us = -1},
        {.id = 3, .cores = 4, .added_us = 0, .removed_us = -1},
        {.id = 7, .cores = 1, .added_us = 0, .removed_us = -1}};
    hearth_tl_task_t tasks[600];
    size_t n = 0;
    srand (42);
    for (size_t x = 0; x < 3; x++)
        for (int64_t c = 0; c < execs[x].cores; c++) {
            int64_t t = rand () % 50;
            for (int k = 0; k < 600 / 7; k++) {
                int64_t len = 1 + rand () % 200;
                tasks[n++] = (hearth_tl_task_t){.exec_id = execs[x].id,
                                                .start_us = t,
                                                .end_us = t + len,
                                                .stage = k % 3};
                t +=
                    len + (k % 4 == 0 ? 0 : rand () % 30); /* 0: back to back */
            }
        }
    for (size_t i = n - 1; i > 0; i--) { /* the array's order: any */
        size_t j = (size_t) rand () % (i + 1);
        hearth_tl_task_t tmp = tasks[i];
        tasks[i] = tasks[j];
        tasks[j] = tmp;
    }
    hearth_tl_t tl = {.tasks = tasks,
                      .ntasks = n,
                      .execs = execs,
                      .nexecs = 3,
                      .origin_us = 0,
                      .end_us = -1};
    int lane[600], lanes[3];
    int64_t from[600];
    assert_int_equal (hearth_timeline_lanes (&tl, lane, lanes, from), 0);
    s_check_lanes (&tl, lane, from);
    for (size_t i = 0; i < n; i++) {
        long x = hearth_timeline_exec (&tl, tasks[i].exec_id);
        assert_true (x >= 0);
        assert_in_range (lane[i], 0, execs[x].cores - 1);
        assert_int_equal (from[i], tasks[i].start_us); /* drawn as given */
    }
    for (size_t x = 0; x < 3; x++)
        assert_int_equal (lanes[x], execs[x].cores);

    /* more at once than cores (a log whose times disagree): new lanes,
       still no overlap; an unknown executor's attempt: no lane */
    hearth_tl_task_t over[] = {{.exec_id = 7, .start_us = 0, .end_us = 10},
                               {.exec_id = 7, .start_us = 2, .end_us = 12},
                               {.exec_id = 7, .start_us = 4, .end_us = 14},
                               {.exec_id = 7, .start_us = 12, .end_us = 20},
                               {.exec_id = 99, .start_us = 0, .end_us = 5}};
    tl.tasks = over;
    tl.ntasks = 5;
    assert_int_equal (hearth_timeline_lanes (&tl, lane, lanes, from), 0);
    s_check_lanes (&tl, lane, from);
    assert_int_equal (lane[0], 0);
    assert_int_equal (lane[1], 1);
    assert_int_equal (lane[2], 2);
    assert_int_equal (lane[3], 0); /* the first free at its start */
    assert_int_equal (lane[4], -1);
    assert_int_equal (lanes[2], 3);
    assert_int_equal (lanes[0], 2); /* no attempt: its cores */

    /* times known to 1 ms: an attempt that starts up to 1 ms before its
       core's last ends follows it on that lane, drawn from its end */
    hearth_tl_task_t near[] = {
        {.exec_id = 7, .start_us = 0, .end_us = 10000},
        {.exec_id = 7, .start_us = 9300, .end_us = 20000},
        {.exec_id = 7, .start_us = 18500, .end_us = 30000}};
    tl.tasks = near;
    tl.ntasks = 3;
    assert_int_equal (hearth_timeline_lanes (&tl, lane, lanes, from), 0);
    s_check_lanes (&tl, lane, from);
    assert_int_equal (lane[1], 1); /* no slack: a lane of its own */
    assert_int_equal (from[1], 9300);
    assert_int_equal (lane[2], 0);
    tl.slack_us = 1000;
    assert_int_equal (hearth_timeline_lanes (&tl, lane, lanes, from), 0);
    s_check_lanes (&tl, lane, from);
    assert_int_equal (lane[1], 0);
    assert_int_equal (from[1], 10000);
    assert_int_equal (lane[2], 1);
    assert_int_equal (lanes[2], 2);
}

/* A failed attempt in its own colour, a stage's name, hostile text
   escaped everywhere it is shown. */
static void
test_escape_and_colour (void **state)
{
    (void) state;
    static const char evil[] = "<script>alert(1)</script>\"&'x";
    const hearth_tl_exec_t execs[] = {{.id = 0,
                                       .cores = 2,
                                       .added_us = 0,
                                       .removed_us = 9000000,
                                       .host = evil,
                                       .reason = evil}};
    const hearth_tl_stage_t stages[] = {
        {.id = 1, .name = evil, .start_us = 0, .end_us = 8000000}};
    const hearth_tl_task_t tasks[] = {
        {.exec_id = 0, .start_us = 0, .end_us = 4000000, .stage = 1},
        {.exec_id = 0,
         .start_us = 1000,
         .end_us = 3000000,
         .stage = 1,
         .index = 1,
         .outcome = HEARTH_TL_FAILED}};
    hearth_tl_t tl = {.tasks = tasks,
                      .ntasks = 2,
                      .execs = execs,
                      .nexecs = 1,
                      .stages = stages,
                      .nstages = 1,
                      .origin_us = 0,
                      .end_us = 10000000};
    char *svg = s_svg (&tl);
    assert_lacks (svg, "<script");
    assert_lacks (svg, "alert(1)</");
    assert_contains (svg,
                     "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&amp;&#39;x");
    assert_contains (svg, "<rect class=\"task failed\" data-lane=\"1\"");
    assert_contains (svg, "height=\"10\" fill=\"#d62728\" stroke=");
    assert_contains (svg, "<title>stage 1 task 1.0 on executor 0: failed, "
                          "3.00s from 1.0ms</title>");
    assert_contains (svg, "<rect class=\"task ok\" data-lane=\"0\"");
    assert_int_equal (s_count (svg, "<rect class=\"lane\""), 2);
    assert_contains (svg, "class=\"exec-removed\"");
    assert_contains (svg, "class=\"exec-added\"");
    assert_contains (svg, "class=\"stage-start\"");
    assert_lacks (svg, "timeline-note");
    free (svg);
}

/* The caller's cut and the module's own bound are said. */
static void
test_cut_note (void **state)
{
    (void) state;
    const hearth_tl_exec_t execs[] = {
        {.id = 0, .cores = 1, .added_us = -1, .removed_us = -1}};
    const hearth_tl_task_t tasks[] = {
        {.exec_id = 0, .start_us = 100, .end_us = 200},
        {.exec_id = 0, .start_us = 200, .end_us = 300},
        {.exec_id = 0, .start_us = 300, .end_us = 400}};
    hearth_tl_t tl = {.tasks = tasks,
                      .ntasks = 3,
                      .cut = 7,
                      .execs = execs,
                      .nexecs = 1,
                      .origin_us = 0,
                      .end_us = 500};
    char *svg = s_svg (&tl);
    assert_contains (svg, "id=\"timeline-note\"");
    assert_contains (svg, ">the last 3 attempts (7 earlier not drawn)</text>");
    assert_contains (svg, "data-drawn=\"3\"");
    free (svg);
}

/* Far more than the bounds: 20,000 attempts, 2,000 executors of 4
   cores, 1,000 stages of 1 KiB names.  The output stays small and says
   what it left out. */
static void
test_bounded (void **state)
{
    (void) state;
    enum { NT = 20000, NX = 2000, NS = 1000 };
    hearth_tl_task_t *tasks = calloc (NT, sizeof *tasks);
    hearth_tl_exec_t *execs = calloc (NX, sizeof *execs);
    hearth_tl_stage_t *stages = calloc (NS, sizeof *stages);
    char *name = malloc (1025);
    assert_true (tasks && execs && stages && name);
    memset (name, '<', 1024);
    name[1024] = '\0';
    for (size_t i = 0; i < NX; i++)
        execs[i] = (hearth_tl_exec_t){.id = (int64_t) i,
                                      .cores = 4,
                                      .added_us = 0,
                                      .removed_us = -1,
                                      .host = name,
                                      .reason = name};
    for (size_t i = 0; i < NS; i++)
        stages[i] = (hearth_tl_stage_t){.id = (int64_t) i,
                                        .name = name,
                                        .start_us = (int64_t) i * 20,
                                        .end_us = (int64_t) i * 20 + 20};
    for (size_t i = 0; i < NT; i++)
        tasks[i] = (hearth_tl_task_t){.exec_id = (int64_t) (i % NX),
                                      .start_us = (int64_t) i,
                                      .end_us = (int64_t) i + 1,
                                      .stage = (int64_t) (i / 20)};
    hearth_tl_t tl = {.tasks = tasks,
                      .ntasks = NT,
                      .execs = execs,
                      .nexecs = NX,
                      .stages = stages,
                      .nstages = NS,
                      .origin_us = 0,
                      .end_us = -1};
    char *svg = s_svg (&tl);
    size_t len = strlen (svg);
    assert_true (len < 4 * 1024 * 1024);
    assert_contains (svg, "the last 5000 attempts (15000 earlier not drawn)");
    assert_contains (svg, "executors over 512 lanes not drawn");
    assert_true (s_count (svg, "<rect class=\"lane\"") <= HEARTH_TL_MAX_LANES);
    assert_true (s_count (svg, "<rect class=\"task ") <= HEARTH_TL_MAX_TASKS);
    assert_true (s_count (svg, "<g class=\"stage\"") <= HEARTH_TL_MAX_STAGES);
    assert_lacks (svg, "<<");
    free (svg);
    free (tasks);
    free (execs);
    free (stages);
    free (name);
}

/* No attempt, no executor: a short SVG that says so. */
static void
test_empty (void **state)
{
    (void) state;
    hearth_tl_t tl = {.origin_us = 1000, .end_us = 2000};
    char *svg = s_svg (&tl);
    assert_contains (svg, "<svg id=\"timeline\"");
    assert_contains (svg, "No executor and no task attempt in this log.");
    assert_contains (svg, "data-drawn=\"0\"");
    assert_lacks (svg, "<rect");
    assert_true (strlen (svg) < 512);
    free (svg);
    /* an executor but no attempt: its lanes, no bar */
    const hearth_tl_exec_t execs[] = {
        {.id = 2, .cores = 3, .added_us = 1000, .removed_us = 1500}};
    tl.execs = execs;
    tl.nexecs = 1;
    svg = s_svg (&tl);
    assert_int_equal (s_count (svg, "<rect class=\"lane\""), 3);
    assert_lacks (svg, "<rect class=\"task");
    free (svg);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_lanes),
        cmocka_unit_test (test_escape_and_colour),
        cmocka_unit_test (test_cut_note),
        cmocka_unit_test (test_bounded),
        cmocka_unit_test (test_empty),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
