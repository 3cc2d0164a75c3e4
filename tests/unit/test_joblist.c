/*  test_joblist.c - job files of several jobs (jobfile/joblist.c and
    their load, jobfile/jobfile.c): the shape of "jobs" checked with each
    mistake's place; each job and each iteration of a repeated one a run,
    in order; {iter} filled in the strings of the tree and of the stored
    tasks ("{{iter}" kept a literal, a run without {iter} not copied); a
    job's env over the file's; a file of one job unchanged; and the
    messages of jobfile_load() naming "jobs[K]" for mistakes inside a
    job. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "jobfile/jobfile.h"
#include "jobfile/joblist.h"
#include "jobfile/jobstream.h"

/* Read text as a job file is read (simple tasks stored). */
static void
s_read (const char *text, cJSON **root, jobstore_t **store)
{
    FILE *f = fmemopen ((void *) text, strlen (text), "r");
    assert_non_null (f);
    hearth_error_t err;
    if (jobstream_read (f, "job.json", 0, 1 << 20, root, store, &err) < 0)
        fail_msg ("%s: %s", text, err.text);
    fclose (f);
}

/* joblist_check of text fails saying want (NULL: succeeds). */
static void
s_check (const char *text, const char *want)
{
    cJSON *root;
    jobstore_t *store;
    s_read (text, &root, &store);
    hearth_error_t err = {0};
    int rc = joblist_check (root, &err);
    if (!want && rc < 0)
        fail_msg ("%s: refused: %s", text, err.text);
    if (want && (rc == 0 || !strstr (err.text, want)))
        fail_msg ("%s: %s, want \"%s\"", text, rc == 0 ? "accepted" : err.text,
                  want);
    cJSON_Delete (root);
    jobstore_destroy (&store);
}

#define JOB(name) "{\"name\": \"" name "\", \"stages\": []}"

static void
test_check (void **state)
{
    (void) state;
    s_check ("{\"jobs\": [" JOB ("a") ", " JOB ("b") "]}", NULL);
    s_check ("{\"jobs\": [" JOB ("a") "], \"stages\": []}",
             "\"jobs\" and \"stages\" exclude each other");
    s_check ("{\"jobs\": []}", "jobs: expected a non-empty array");
    s_check ("{\"jobs\": {}}", "jobs: expected a non-empty array");
    s_check ("{\"jobs\": [" JOB ("a") "], \"tasks\": []}",
             "the file: unknown key 'tasks'");
    s_check ("{\"jobs\": [7]}", "jobs[0]: expected an object");
    s_check ("{\"jobs\": [" JOB ("a") ", {\"name\": \"b\", \"stage\": []}]}",
             "jobs[1]: unknown key 'stage'");
    s_check ("{\"jobs\": [{\"name\": \"a\", \"repeat\": 2}]}",
             "jobs[0].stages: expected a non-empty array");
    s_check ("{\"jobs\": [{\"stages\": []}]}",
             "jobs[0].name: expected a non-empty string");
    s_check ("{\"jobs\": [{\"name\": \"\", \"stages\": []}]}",
             "jobs[0].name: expected a non-empty string");
    s_check ("{\"jobs\": [" JOB ("a") ", " JOB ("b") ", " JOB ("a") "]}",
             "jobs[2].name: \"a\" is used twice");
    s_check ("{\"jobs\": [" JOB ("a\\u001b[31m") "]}",
             "jobs[0].name: a control character (\\x1b) at byte 1");
    s_check ("{\"jobs\": [" JOB ("a/b") "]}",
             "jobs[0].name: \"a/b\" holds a '/'");
    static const char *const bad_repeats[] = {"0",     "-1",   "1001", "2.5",
                                              "\"3\"", "true", NULL};
    for (int i = 0; bad_repeats[i]; i++) {
        char text[256];
        snprintf (text, sizeof text,
                  "{\"jobs\": [" JOB ("a") ", {\"name\": \"b\", \"repeat\": "
                                           "%s, \"stages\": []}]}",
                  bad_repeats[i]);
        s_check (text,
                 "jobs[1].repeat: expected a whole number from 1 to 1000");
    }
    s_check (
        "{\"jobs\": [{\"name\": \"a\", \"repeat\": 1000, \"stages\": []}]}",
        NULL);
    /* 10,000 runs in all, iterations counted */
    char *many = NULL;
    size_t len = 0;
    FILE *m = open_memstream (&many, &len);
    fputs ("{\"jobs\": [", m);
    for (int i = 0; i < 11; i++)
        fprintf (m, "%s{\"name\": \"j%d\", \"repeat\": 1000, \"stages\": []}",
                 i ? ", " : "", i);
    fputs ("]}", m);
    fclose (m);
    s_check (many, "jobs[10]: more than 10000 jobs in all");
    free (many);
    s_check ("{\"params\": {\"iter\": \"1\"}, \"jobs\": [" JOB ("a") "]}",
             "params.iter: a name Hearth fills itself");
}

/* The string at path (a.b[2].c: keys and indexes) under root. */
static const char *
s_at (const cJSON *root, const char *key, int stage, int task, int arg)
{
    const cJSON *st = cJSON_GetArrayItem (
        cJSON_GetObjectItemCaseSensitive (root, "stages"), stage);
    const cJSON *t = cJSON_GetArrayItem (
        cJSON_GetObjectItemCaseSensitive (st, "tasks"), task);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (t, key);
    return cJSON_GetStringValue (arg >= 0 ? cJSON_GetArrayItem (v, arg) : v);
}

/* Stored task k of the run node stands for, as a JSON text. */
static char *
s_stored (const jobstore_t *store, const cJSON *node, int k)
{
    cJSON *tasks = jobstore_expand (store, node);
    assert_non_null (tasks);
    char *text = cJSON_PrintUnformatted (cJSON_GetArrayItem (tasks, k));
    cJSON_Delete (tasks);
    return text;
}

static void
test_expand (void **state)
{
    (void) state;
    cJSON *root;
    jobstore_t *store;
    s_read ("{\"params\": {\"p\": \"v\"}, \"jobs\": ["
            "{\"name\": \"once\", \"stages\": [{\"name\": \"s\", \"tasks\": ["
            "{\"fn\": \"f\", \"arg\": \"{i}\"}]}]},"
            "{\"name\": \"loop\", \"repeat\": 3, \"env\": {\"E\": \"e{iter}\"},"
            " \"stages\": [{\"name\": \"s{iter}\", \"tasks\": ["
            "{\"fn\": \"f\", \"arg\": \"{iter}-{i}-{{iter}-{iter}{iter}\"},"
            "{\"cmd\": [\"echo\", \"{iter}\", \"{p}\"]},"
            "{\"cmd\": [\"plain\"], \"count\": 2},"
            "{\"cmd\": [\"x{iter}\"], \"timeout\": \"{iter}s\"}]}]}]}",
            &root, &store);
    assert_int_equal (joblist_check (root, NULL), 0);
    joblist_run_t *runs;
    size_t n;
    size_t before = jobstore_bytes (store);
    assert_int_equal (
        joblist_expand (cJSON_GetObjectItemCaseSensitive (root, "jobs"),
                        cJSON_GetObjectItemCaseSensitive (root, "params"),
                        store, &runs, &n, NULL),
        0);
    assert_int_equal (n, 4);
    assert_string_equal (runs[0].name, "once");
    assert_int_equal (runs[0].iter, -1);
    assert_int_equal (runs[0].job, 0);
    const cJSON *once = cJSON_GetObjectItemCaseSensitive (
        cJSON_GetArrayItem (
            cJSON_GetObjectItemCaseSensitive (runs[0].root, "stages"), 0),
        "tasks");
    /* a run without {iter}: the same records, not copied */
    const cJSON *orig = cJSON_GetObjectItemCaseSensitive (
        cJSON_GetArrayItem (
            cJSON_GetObjectItemCaseSensitive (
                cJSON_GetArrayItem (
                    cJSON_GetObjectItemCaseSensitive (root, "jobs"), 0),
                "stages"),
            0),
        "tasks");
    assert_int_equal (jobtask_first (once->child), jobtask_first (orig->child));
    assert_true (jobtask_is_stored (once->child));
    char *text = s_stored (store, once->child, 0);
    assert_string_equal (text, "{\"fn\":\"f\",\"arg\":\"{i}\"}");
    free (text);
    for (int it = 0; it < 3; it++) {
        const joblist_run_t *r = &runs[1 + it];
        char want[128];
        assert_string_equal (r->name, "loop");
        assert_int_equal (r->job, 1);
        assert_int_equal (r->iter, it);
        assert_int_equal (r->repeat, 3);
        /* the file's params come along, unfilled (jobparams does it) */
        assert_string_equal (
            cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (
                cJSON_GetObjectItemCaseSensitive (r->root, "params"), "p")),
            "v");
        snprintf (want, sizeof want, "e%d", it);
        assert_string_equal (
            cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (
                cJSON_GetObjectItemCaseSensitive (r->root, "env"), "E")),
            want);
        const cJSON *st = cJSON_GetArrayItem (
            cJSON_GetObjectItemCaseSensitive (r->root, "stages"), 0);
        snprintf (want, sizeof want, "s%d", it);
        assert_string_equal (cJSON_GetStringValue (
                                 cJSON_GetObjectItemCaseSensitive (st, "name")),
                             want);
        const cJSON *tasks = cJSON_GetObjectItemCaseSensitive (st, "tasks");
        /* the stored run: fn/arg and echo, rewritten for this iteration */
        assert_true (jobtask_is_stored (tasks->child));
        assert_int_equal (jobtask_span (tasks->child), 2);
        text = s_stored (store, tasks->child, 0);
        snprintf (want, sizeof want,
                  "{\"fn\":\"f\",\"arg\":\"%d-{i}-{{iter}-%d%d\"}", it, it, it);
        assert_string_equal (text, want);
        free (text);
        text = s_stored (store, tasks->child, 1);
        snprintf (want, sizeof want, "{\"cmd\":[\"echo\",\"%d\",\"{p}\"]}", it);
        assert_string_equal (text, want);
        free (text);
        /* trees: filled where they hold it, kept where not */
        assert_string_equal (s_at (r->root, "cmd", 0, 1, 0), "plain");
        snprintf (want, sizeof want, "x%d", it);
        assert_string_equal (s_at (r->root, "cmd", 0, 2, 0), want);
        snprintf (want, sizeof want, "%ds", it);
        assert_string_equal (s_at (r->root, "timeout", 0, 2, -1), want);
    }
    /* the file's own tree is as it was */
    const cJSON *loop =
        cJSON_GetArrayItem (cJSON_GetObjectItemCaseSensitive (root, "jobs"), 1);
    assert_string_equal (
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (
            cJSON_GetArrayItem (
                cJSON_GetObjectItemCaseSensitive (loop, "stages"), 0),
            "name")),
        "s{iter}");
    assert_true (jobstore_bytes (store) > before);
    joblist_runs_destroy (&runs, n);
    assert_null (runs);
    joblist_runs_destroy (&runs, 0); /* accepts NULL */
    cJSON_Delete (root);
    jobstore_destroy (&store);
}

static void
test_finish (void **state)
{
    (void) state;
    joblist_run_t run = {.name = strdup ("j"), .iter = -1};
    run.root = cJSON_Parse ("{\"env\": {\"B\": \"job\", \"C\": \"job\"}}");
    cJSON *file_env = cJSON_Parse ("{\"A\": \"file\", \"B\": \"file\"}");
    assert_int_equal (joblist_finish (&run, file_env, NULL), 0);
    cJSON *want = cJSON_Parse ("{\"env\": {\"A\": \"file\", \"B\": \"job\", "
                               "\"C\": \"job\"}, \"name\": \"j\"}");
    assert_true (cJSON_Compare (run.root, want, true));
    cJSON_Delete (want);
    cJSON_Delete (run.root);
    /* neither has an env: none */
    run.root = cJSON_CreateObject ();
    assert_int_equal (joblist_finish (&run, NULL, NULL), 0);
    assert_false (cJSON_HasObjectItem (run.root, "env"));
    cJSON_Delete (run.root);
    /* only the job's */
    run.root = cJSON_Parse ("{\"env\": {\"B\": \"job\"}}");
    assert_int_equal (joblist_finish (&run, NULL, NULL), 0);
    assert_string_equal (
        cJSON_GetStringValue (cJSON_GetObjectItemCaseSensitive (
            cJSON_GetObjectItemCaseSensitive (run.root, "env"), "B")),
        "job");
    cJSON_Delete (run.root);
    cJSON_Delete (file_env);
    free (run.name);
}

/* ---- jobfile_load ------------------------------------------------------ */

static char s_dir[] = "/tmp/test_joblist.XXXXXX";

/* Load text as a job file; NULL and the message in *msg (a copy) on
   failure. */
static jobfile_t *
s_load (const char *text, char **msg, const char *const *params, size_t nparams)
{
    char path[64];
    snprintf (path, sizeof path, "%s/job.json", s_dir);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
    jobparams_input_t in = {
        .params = params, .nparams = nparams, .submit_dir = "/sub"};
    hearth_error_t err = {0};
    jobfile_t *jf = jobfile_load (path, &in, &err);
    *msg = jf ? NULL : strdup (err.text);
    return jf;
}

/* text fails to load, saying want after "PATH: ". */
static void
s_refused (const char *text, const char *want)
{
    char *msg;
    jobfile_t *jf = s_load (text, &msg, NULL, 0);
    if (jf)
        fail_msg ("%s: loaded", text);
    const char *colon = strstr (msg, "job.json: ");
    if (!colon || strncmp (colon + 10, want, strlen (want)) != 0)
        fail_msg ("%s: \"%s\", want \"%s\"", text, msg, want);
    free (msg);
}

#define STAGE(task) "[{\"name\": \"s\", \"tasks\": [" task "]}]"

static void
test_load (void **state)
{
    (void) state;
    assert_non_null (mkdtemp (s_dir));
    const char *params[] = {"p=given"};
    char *msg;
    jobfile_t *jf = s_load (
        "{\"name\": \"app\", \"params\": {\"p\": \"d\"}, \"env\": {\"A\": "
        "\"{p}\"}, \"jobs\": [{\"name\": \"one\", \"stages\": " STAGE (
            "{\"cmd\": [\"echo\", \"{p}\"]}") "}, {\"name\": \"two\", "
                                              "\"repeat\": 2, "
                                              "\"stages\": " STAGE (
                                                  "{\"cmd\": [\"echo\", "
                                                  "\"{iter}\"]}") "}]}",
        &msg, params, 1);
    if (!jf)
        fail_msg ("%s", msg);
    assert_string_equal (jobfile_name (jf), "app");
    assert_int_equal (jobfile_count (jf), 3);
    char label[128];
    jobfile_job_label (jf, 0, label, sizeof label);
    assert_string_equal (label, "job one (jobs[0])");
    jobfile_job_label (jf, 2, label, sizeof label);
    assert_string_equal (label,
                         "job two (jobs[1], iteration {iter}=1 of 0...1)");
    assert_string_equal (jobfile_job_name (jf, 2), "two");
    assert_string_equal (jobfile_output_stage (jf, 1), "s");
    assert_int_equal (jobfile_check_outputs (jf, NULL, false, NULL), 0);
    jobfile_destroy (&jf);
    assert_null (jf);

    /* a file of one job: one job, named by the file */
    jf = s_load (
        "{\"name\": \"solo\", \"stages\": " STAGE ("{\"cmd\": [\"true\"]}") "}",
        &msg, NULL, 0);
    assert_non_null (jf);
    assert_int_equal (jobfile_count (jf), 1);
    jobfile_job_label (jf, 0, label, sizeof label);
    assert_string_equal (label, "job solo");
    jobfile_destroy (&jf);
    /* ... where a param "iter" stays a param, as it always was */
    jf = s_load ("{\"params\": {\"iter\": \"7\"}, \"stages\": " STAGE (
                     "{\"cmd\": [\"echo\", \"{iter}\"]}") "}",
                 &msg, NULL, 0);
    assert_non_null (jf);
    jobfile_destroy (&jf);

    /* mistakes inside a job are named by its place in "jobs" */
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"stages\": " STAGE (
                   "{\"cmd\": [\"true\"]}") "}, {\"name\": \"b\", "
                                            "\"stages\": " STAGE ("{\"cmd\": "
                                                                  "[\"x\"], "
                                                                  "\"count\": "
                                                                  "0}") "}]}",
               "jobs[1].stages[0].tasks[0].count: expected a whole number");
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"stages\": []}]}",
               "jobs[0].stages: expected a non-empty array");
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"env\": {\"A\": 1}, "
               "\"stages\": " STAGE ("{\"cmd\": [\"true\"]}") "}]}",
               "jobs[0].env.A: expected a string value");
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"stages\": " STAGE (
                   "{\"cmd\": [\"echo\", \"{nope}\"]}") "}]}",
               "jobs[0].stages[0].tasks[0].cmd[1]: unknown {nope}");
    /* {iter} outside a repeated job's stages and env */
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"stages\": " STAGE (
                   "{\"cmd\": [\"echo\", \"{iter}\"]}") "}]}",
               "jobs[0].stages[0].tasks[0].cmd[1]: {iter} is only known in "
               "the stages and \"env\" of a job with \"repeat\"");
    s_refused (
        "{\"env\": {\"A\": \"{iter}\"}, \"jobs\": [{\"name\": \"a\", "
        "\"repeat\": 2, \"stages\": " STAGE ("{\"cmd\": [\"true\"]}") "}]}",
        "env.A: {iter} is only known");
    s_refused (
        "{\"stages\": " STAGE ("{\"fn\": \"f\", \"arg\": \"{iter}\"}") "}",
        "stages[0].tasks[0].arg: {iter} is only known");
    /* a job's names are its own: a stage named in another job is not
       one of its stages */
    s_refused ("{\"jobs\": [{\"name\": \"a\", \"stages\": " STAGE (
                   "{\"cmd\": [\"true\"]}") "}, {\"name\": \"b\", \"stages\": "
                                            "[{\"name\": \"t\", \"tasks\": "
                                            "[{\"cmd\": [\"cat\"], \"input\": "
                                            "\"s\"}]}]}]}",
               "jobs[1].stages[0]: input \"s\" is not a stage before this one");
    /* the top still checked as a job's */
    s_refused ("{\"name\": 3, \"jobs\": [{\"name\": \"a\", \"stages\": " STAGE (
                   "{\"cmd\": [\"true\"]}") "}]}",
               "name: expected a string");

    /* two iterations writing one output directory: refused, an
       {iter} in it tells them apart */
    jf = s_load ("{\"jobs\": [{\"name\": \"a\", \"repeat\": 2, \"stages\": "
                 "[{\"name\": \"s\", \"output\": \"/nonexistent/out\", "
                 "\"tasks\": [{\"cmd\": [\"true\"]}]}]}]}",
                 &msg, NULL, 0);
    assert_non_null (jf);
    hearth_error_t err = {0};
    assert_int_equal (jobfile_check_outputs (jf, NULL, false, &err), -1);
    assert_non_null (strstr (err.text,
                             "jobs[0].stages[0] (stage s): the output "
                             "directory /nonexistent/out is also the "
                             "output of jobs[0].stages[0], an earlier "
                             "iteration"));
    jobfile_destroy (&jf);
    jf = s_load ("{\"jobs\": [{\"name\": \"a\", \"repeat\": 2, \"stages\": "
                 "[{\"name\": \"s\", \"output\": \"/nonexistent/out{iter}\", "
                 "\"tasks\": [{\"cmd\": [\"true\"]}]}]}]}",
                 &msg, NULL, 0);
    assert_non_null (jf);
    assert_int_equal (jobfile_check_outputs (jf, NULL, false, NULL), 0);
    /* --output is the last job's: the same as an earlier one's is refused */
    assert_int_equal (
        jobfile_check_outputs (jf, "/nonexistent/out0", false, &err), -1);
    assert_non_null (strstr (err.text, "is also the output of jobs[0]"));
    jobfile_destroy (&jf);
    /* the parts of an earlier job's output: read when the job is
       built, not at load (the directory does not exist yet); any other
       directory that does not exist stops the file at load */
    jf = s_load ("{\"jobs\": [{\"name\": \"w\", \"stages\": [{\"name\": "
                 "\"s\", \"output\": \"/nonexistent/parts\", \"tasks\": "
                 "[{\"cmd\": [\"true\"]}]}]}, {\"name\": \"r\", \"stages\": "
                 "[{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"cat\", "
                 "\"{item}\"], \"foreach\": {\"parts\": "
                 "\"/nonexistent/parts\"}}]}]}]}",
                 &msg, NULL, 0);
    if (!jf)
        fail_msg ("%s", msg);
    jobfile_destroy (&jf);
    jf = s_load ("{\"jobs\": [{\"name\": \"w\", \"stages\": [{\"name\": "
                 "\"s\", \"output\": \"/nonexistent/parts\", \"tasks\": "
                 "[{\"cmd\": [\"true\"]}]}]}, {\"name\": \"r\", \"stages\": "
                 "[{\"name\": \"s\", \"tasks\": [{\"cmd\": [\"cat\", "
                 "\"{item}\"], \"foreach\": {\"parts\": "
                 "\"/nonexistent/other\"}}]}]}]}",
                 &msg, NULL, 0);
    assert_null (jf);
    assert_non_null (strstr (msg, "/nonexistent/other/_SUCCESS"));
    free (msg);
    char path[64];
    snprintf (path, sizeof path, "%s/job.json", s_dir);
    unlink (path);
    rmdir (s_dir);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_check),
        cmocka_unit_test (test_expand),
        cmocka_unit_test (test_finish),
        cmocka_unit_test (test_load),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
