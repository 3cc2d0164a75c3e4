/*  test_jobstream.c - the streaming job-file reader (jobfile/jobstream.c,
    jobfile/jobstore.c): for documents of every shape, read in chunks of 1
    to 7 bytes and whole, the tree with its stored tasks put back is what
    cJSON_Parse makes of the same text; simple tasks are stored and any
    other task stays a tree (another key, a key twice, a value that is
    not a string, a nested value in "cmd", an empty "cmd" or "fn", "arg"
    with "cmd"); the tasks read without yajl (jobfast.h) the same; errors
    name the line and column; a replaced record. */
#include "config.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cjson/cJSON.h>

#include "jobfile/jobstream.h"

/* Read text (NUL-terminated) in chunks of chunk bytes. */
static int
s_read (const char *text, size_t chunk, cJSON **root, jobstore_t **store,
        hearth_error_t *err)
{
    FILE *f = fmemopen ((void *) text, strlen (text), "r");
    assert_non_null (f);
    int rc = jobstream_read (f, "job.json", chunk, 1 << 20, root, store, err);
    fclose (f);
    return rc;
}

/* Put every stored task of tree back as the objects it was; counts them
   into *stored and the runs into *runs. */
static void
s_expand (cJSON *node, const jobstore_t *store, int *stored, int *runs)
{
    bool is_array = cJSON_IsArray (node);
    cJSON *out = cJSON_CreateArray ();
    assert_non_null (out);
    cJSON *c;
    while (is_array && (c = cJSON_DetachItemFromArray (node, 0))) {
        if (!jobtask_is_stored (c)) {
            cJSON_AddItemToArray (out, c);
            continue;
        }
        cJSON *tasks = jobstore_expand (store, c);
        assert_non_null (tasks);
        assert_int_equal (cJSON_GetArraySize (tasks), jobtask_span (c));
        (*runs)++;
        cJSON *t;
        while ((t = cJSON_DetachItemFromArray (tasks, 0))) {
            cJSON_AddItemToArray (out, t);
            (*stored)++;
        }
        cJSON_Delete (tasks);
        cJSON_Delete (c);
    }
    while (is_array && (c = cJSON_DetachItemFromArray (out, 0)))
        cJSON_AddItemToArray (node, c);
    cJSON_Delete (out);
    for (c = node->child; c; c = c->next)
        if (c->child)
            s_expand (c, store, stored, runs);
}

/* Whether a and b are the same; by_text: printed the same (cJSON_Compare
   cannot tell objects with a key twice apart), else cJSON_Compare (keys
   in any order: a stored task comes back "fn" first). */
static bool
s_equal (const cJSON *a, const cJSON *b, bool by_text)
{
    if (!by_text)
        return cJSON_Compare (a, b, true);
    char *ta = cJSON_PrintUnformatted (a), *tb = cJSON_PrintUnformatted (b);
    bool same = ta && tb && strcmp (ta, tb) == 0;
    free (ta);
    free (tb);
    return same;
}

/* text reads as cJSON reads it, in every chunk size, with want_stored
   tasks stored. */
static void
s_same_as (const char *text, int want_stored, int want_runs, bool by_text)
{
    cJSON *want = cJSON_Parse (text);
    assert_non_null (want);
    static const size_t chunks[] = {1, 2, 3, 5, 7, 0};
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        cJSON *root = NULL;
        jobstore_t *store = NULL;
        hearth_error_t err;
        if (s_read (text, chunks[k], &root, &store, &err) < 0)
            fail_msg ("%s: %s", text, err.text);
        int stored = 0, runs = 0;
        s_expand (root, store, &stored, &runs);
        if (stored != want_stored || runs != want_runs)
            fail_msg ("%s (chunk %zu): %d stored in %d runs, want %d in %d",
                      text, chunks[k], stored, runs, want_stored, want_runs);
        if (!s_equal (root, want, by_text)) {
            char *got = cJSON_PrintUnformatted (root);
            fail_msg ("%s (chunk %zu): read as %s", text, chunks[k], got);
        }
        cJSON_Delete (root);
        jobstore_destroy (&store);
    }
    cJSON_Delete (want);
}

static void
s_same (const char *text, int want_stored, int want_runs)
{
    s_same_as (text, want_stored, want_runs, false);
}

static void
test_same_as_cjson (void **state)
{
    (void) state;
    s_same ("{}", 0, 0);
    s_same ("{\"name\": \"j\", \"lib\": [\"a.so\"], \"params\": {\"n\": \"3\"},"
            " \"env\": {\"A\": \"1\"}, \"x\": [1, 2.5, -3e2, true, false,"
            " null, {\"y\": [[]]}]}",
            0, 0);
    /* simple tasks, in both orders of their keys, with escapes */
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": ["
            "{\"fn\": \"f\", \"arg\": \"x\\\"y\\n\\u00e9\"},"
            "{\"arg\": \"{i}\", \"fn\": \"g\"}, {\"fn\": \"h\"},"
            "{\"cmd\": [\"sh\", \"-c\", \"echo {i}\"]}, {\"cmd\": [\"true\"]}"
            "]}]}",
            5, 1);
    /* runs: one a stage, broken by a tree; two stages */
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": ["
            "{\"fn\": \"f\"}, {\"fn\": \"g\"}, {\"fn\": \"f\", \"count\": 2},"
            "{\"fn\": \"h\"}]}, {\"name\": \"b\", \"tasks\": [{\"fn\": \"k\"},"
            "{\"cmd\": [\"x\"]}]}]}",
            5, 3);
    /* kept as trees: other keys, a key twice, other types, nesting, and
       what the checks refuse; the stored ones among them keep order */
    s_same ("{\"stages\": [{\"name\": \"a\", \"after\": [\"b\"], \"tasks\": ["
            "{\"fn\": \"f\", \"count\": 3},"
            "{\"fn\": \"f\"},"
            "{\"fn\": 3},"
            "{\"fn\": {\"a\": 1}},"
            "{\"arg\": \"only\"},"
            "{\"fn\": \"\"},"
            "{\"cmd\": []},"
            "{\"cmd\": [\"a\", 1, \"b\"]},"
            "{\"cmd\": [\"a\", [\"b\"]]},"
            "{\"cmd\": [\"a\", {\"b\": 1}]},"
            "{\"cmd\": \"ls\"},"
            "{\"cmd\": [\"a\"], \"arg\": \"x\"},"
            "{\"cmd\": [\"a\"], \"fn\": \"f\"},"
            "{\"cmd\": [\"x\"], \"env\": {\"A\": \"{i}\"}},"
            "{},"
            "\"text\", 7, [\"cmd\"],"
            "{\"cmd\": [\"last\"]}"
            "]}, {\"name\": \"b\", \"tasks\": {\"fn\": \"f\"}}]}",
            2, 2);
    /* a key twice: a tree, both kept in order (compared as printed) */
    s_same_as (
        "{\"stages\": [{\"name\": \"a\", \"tasks\": ["
        "{\"fn\": \"f\", \"fn\": \"g\"}, {\"fn\": \"f\", \"arg\": \"a\"},"
        "{\"cmd\": [\"a\"], \"cmd\": [\"b\"]},"
        "{\"arg\": \"x\", \"arg\": \"y\", \"fn\": \"f\"}]}]}",
        1, 1, true);
    /* a file of several jobs: the stages of each job of "jobs" are read
       as the root's are; "stages" elsewhere under a job is a tree */
    s_same ("{\"jobs\": [{\"name\": \"a\", \"stages\": [{\"name\": \"s\","
            " \"tasks\": [{\"fn\": \"f\"}, {\"cmd\": [\"x\"]}]}]},"
            " {\"name\": \"b\", \"repeat\": 2, \"stages\": [{\"name\":"
            " \"s\", \"tasks\": [{\"fn\": \"g\", \"arg\": \"{iter}\"}]}]},"
            " {\"env\": {\"stages\": [{\"tasks\": [{\"fn\": \"f\"}]}]}}]}",
            3, 2);
    s_same ("{\"jobs\": {\"stages\": [{\"tasks\": [{\"fn\": \"f\"}]}]},"
            " \"other\": [{\"stages\": [{\"tasks\": [{\"fn\": \"f\"}]}]}]}",
            0, 0);
    /* tasks only where a stage has them */
    s_same ("{\"tasks\": [{\"fn\": \"f\"}], \"stages\": [[{\"fn\": \"f\"}],"
            "{\"other\": [{\"fn\": \"f\"}], \"tasks\": [{\"fn\": \"f\"}]}]}",
            1, 1);
}

/* Raw control characters inside strings (a shell script written over
   lines): not JSON, but cJSON took them, so they read as escaped. */
static void
test_raw_controls_in_strings (void **state)
{
    (void) state;
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"cmd\": [\"sh\","
            " \"-c\", \"echo \\\"a\\\";\n  exit 0\t\"]}]}]}",
            1, 1);
    /* a file wrong elsewhere too keeps the first message, the strict
       parse's (its place is in the file as written) */
    cJSON *root = NULL;
    jobstore_t *store = NULL;
    hearth_error_t err;
    assert_int_equal (
        s_read ("{\"a\": \"x\ny\",\n  [1]}", 0, &root, &store, &err), -1);
    assert_non_null (strstr (err.text, "job.json:1:")); /* the newline's */
    assert_non_null (strstr (err.text, "not valid JSON here"));
}

/* The second read of a file with raw control characters is sized from
   the file, not from the limit: a limit of half the address space reads
   it (a buffer of the limit's size could not be had), from a file
   (its size known) and from a stream (grown as read); every control
   character, each escaped to six bytes, reads as cJSON reads it. */
static void
test_raw_controls_sized_from_file (void **state)
{
    (void) state;
    char text[512] = "{\"stages\": [{\"name\": \"a\", \"tasks\": ["
                     "{\"cmd\": [\"";
    size_t n = strlen (text);
    for (int c = 1; c < 0x20; c++)
        text[n++] = (char) c;
    strcpy (text + n, "\"]}, {\"fn\": \"f\", \"arg\": \"\x01\x01\"}]}]}");
    cJSON *want = cJSON_Parse (text);
    assert_non_null (want);
    for (int from_file = 0; from_file < 2; from_file++) {
        FILE *f = from_file ? tmpfile ()
                            : fmemopen ((void *) text, strlen (text), "r");
        assert_non_null (f);
        if (from_file) {
            assert_int_equal (fwrite (text, 1, strlen (text), f),
                              strlen (text));
            rewind (f);
        }
        cJSON *root = NULL;
        jobstore_t *store = NULL;
        hearth_error_t err;
        if (jobstream_read (f, "job.json", 0, SIZE_MAX / 2, &root, &store, &err)
            < 0)
            fail_msg ("from %s: %s", from_file ? "a file" : "a stream",
                      err.text);
        fclose (f);
        int stored = 0, runs = 0;
        s_expand (root, store, &stored, &runs);
        assert_int_equal (stored, 2);
        assert_true (cJSON_Compare (root, want, true));
        cJSON_Delete (root);
        jobstore_destroy (&store);
    }
    cJSON_Delete (want);
}

/* A string holding \u0000 is cut there, as cJSON cuts it. */
static void
test_nul_in_strings (void **state)
{
    (void) state;
    s_same ("{\"stages\": [{\"name\": \"a\\u0000b\", \"tasks\": ["
            "{\"fn\": \"f\\u0000g\", \"arg\": \"x\\u0000\"}]}]}",
            1, 1);
}

/* A run's placeholder says whether any of its strings holds a '{' (the
   params' filling reads only those runs, jobparams.c): set by the one
   record that has it, wherever it is in the run; and an "fn" that a NUL
   cuts to nothing is no simple task (the checks refuse it). */
static void
test_braces_flag (void **state)
{
    (void) state;
    cJSON *root = NULL;
    jobstore_t *store = NULL;
    hearth_error_t err;
    assert_int_equal (
        s_read ("{\"stages\": [{\"name\": \"a\", \"tasks\": ["
                "{\"fn\": \"f\", \"arg\": \"x\"}, {\"cmd\": [\"a\", \"b\"]}]},"
                "{\"name\": \"b\", \"tasks\": [{\"fn\": \"f\"},"
                "{\"cmd\": [\"a\", \"{i}\"]}, {\"fn\": \"g\"}]},"
                "{\"name\": \"c\", \"tasks\": [{\"arg\": \"{x\", \"fn\": "
                "\"f\"}]}]}",
                3, &root, &store, &err),
        0);
    const cJSON *st = cJSON_GetObjectItem (root, "stages")->child;
    bool want[] = {false, true, true};
    for (int k = 0; k < 3; k++, st = st->next) {
        const cJSON *run = cJSON_GetObjectItem (st, "tasks")->child;
        assert_true (jobtask_is_stored (run));
        assert_null (run->next);
        assert_int_equal (jobtask_has_braces (run), want[k]);
    }
    cJSON_Delete (root);
    jobstore_destroy (&store);
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": ["
            "{\"fn\": \"\\u0000x\"}, {\"fn\": \"y\\u0000\"}]}]}",
            1, 1);
}

static void
s_refused (const char *text, const char *want)
{
    static const size_t chunks[] = {1, 4, 0};
    for (size_t k = 0; k < sizeof chunks / sizeof *chunks; k++) {
        cJSON *root = NULL;
        jobstore_t *store = NULL;
        hearth_error_t err;
        assert_int_equal (s_read (text, chunks[k], &root, &store, &err), -1);
        if (strcmp (err.text, want) != 0)
            fail_msg ("%s (chunk %zu): got '%s', want '%s'", text, chunks[k],
                      err.text, want);
        assert_null (root);
        assert_null (store);
    }
}

/* After a task of a "tasks" array, the simple tasks that follow are read
   without yajl (jobfast.h): every shape it takes or leaves to yajl, with
   every whitespace, reads as cJSON reads it, in runs as before; an
   error after such tasks is where yajl alone put it. */
static void
test_fast_tasks (void **state)
{
    (void) state;
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"fn\": \"a\"},\n"
            " {\"fn\": \"b\", \"arg\": \"{i} x\"},\r\n\t{\"arg\": "
            "\"c\",\"fn\":\"d\"} ,"
            "{ \"cmd\" : [ \"x\" , \"\xc3\xa9\" ] },{\"fn\": \"e\"}]}]}",
            5, 1);
    /* left to yajl, each after a task read fast: escapes, \v and \f,
       another key, a key twice, an empty fn or cmd, 17 strings, a value
       not a string; the tasks after each are read fast again */
    s_same ("{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"fn\": \"a\"},"
            "{\"fn\": \"b\\n\"}, {\"fn\": \"c\"},{\"f\\u006e\": \"d\"},"
            "{\"fn\": \"e\"},\v{\"fn\": \"f\"},\f{\"fn\": \"g\"},"
            "{\"fn\": \"h\", \"count\": 2}, {\"fn\": \"i\"},"
            "{\"fn\": \"\"}, {\"cmd\": []}, {\"cmd\": [\"j\"], \"arg\": \"k\"},"
            "{\"cmd\": [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\","
            "\"10\",\"11\",\"12\",\"13\",\"14\",\"15\",\"16\",\"17\"]},"
            "{\"cmd\": [\"1\",\"2\",\"3\",\"4\",\"5\",\"6\",\"7\",\"8\",\"9\","
            "\"10\",\"11\",\"12\",\"13\",\"14\",\"15\",\"16\"]},"
            "{\"fn\": 1}, {\"cmd\": [\"l\", 2]}, [\"m\"], {\"fn\": \"n\"}]}]}",
            11, 4);
    s_same_as (
        "{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"fn\": \"a\"},"
        "{\"fn\": \"b\", \"fn\": \"c\"}, {\"arg\": \"x\", \"arg\": \"y\"},"
        "{\"fn\": \"d\"}]}]}",
        2, 2, true);
    s_refused ("{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"fn\": \"a\"},\n"
               " {\"fn\": \"b\"},\r\n\t{\"cmd\": [\"x\", \"y\"]},\n"
               " {\"fn\": \"c\" x}]}]}",
               "job.json:4:13: not valid JSON here");
    s_refused (
        "{\"stages\": [{\"name\": \"a\", \"tasks\": [{\"fn\": \"a\"}, "
        "{\"fn\": \"b\", \"arg\": \"c\"}, {\"arg\": \"d\", \"fn\": \"e\"},\n"
        "{\"fn\": \"\"}, {\"fn\": \"f\",}]}]}",
        "job.json:2:24: not valid JSON here");
}

static void
test_refused (void **state)
{
    (void) state;
    s_refused ("{\"stages\": [\n", "job.json:2:1: not valid JSON here");
    s_refused ("{\"a\": 1}\n{\"b\": 2}", "job.json:2:1: not valid JSON here");
    s_refused ("{\"a\":\n  [1,, 2]}", "job.json:2:6: not valid JSON here");
    s_refused ("{\"stages\": [{\"tasks\": [{\"fn\": \"f\",}]}]}",
               "job.json:1:35: not valid JSON here");
    s_refused ("[1, 2]", "job.json: the job must be a JSON object");
    s_refused ("\"text\"", "job.json: the job must be a JSON object");
    s_refused ("", "job.json:1:1: not valid JSON here");
    char deep[400] = "{\"a\": ";
    for (int i = 0; i < 130; i++)
        strcat (deep, "[");
    s_refused (deep, "job.json:1:134: nested deeper than 128 levels");
    /* over the size limit */
    FILE *f = fmemopen ((void *) "{\"a\": \"0123456789\"}", 19, "r");
    cJSON *root = NULL;
    jobstore_t *store = NULL;
    hearth_error_t err;
    assert_int_equal (
        jobstream_read (f, "big.json", 4, 10, &root, &store, &err), -1);
    assert_string_equal (err.text,
                         "big.json: not a readable file of at most 10 bytes");
    fclose (f);
}

/* A run rewritten (its strings filled) reads back new; the store grows
   past its first buffer; a run grows only while the store's last
   append was its own. */
static void
test_runs_rewrite_and_grow (void **state)
{
    (void) state;
    jobstore_t *store = jobstore_new ();
    assert_non_null (store);
    cJSON *arr = cJSON_CreateArray ();
    for (int i = 0; i < 20000; i++) {
        char arg[32];
        snprintf (arg, sizeof arg, "task-%d", i);
        const char *strs[] = {"noop", arg};
        size_t lens[] = {4, strlen (arg)};
        assert_int_equal (
            jobstore_append (store, arr, JOBTASK_FN_ARG, strs, lens, 2), 0);
    }
    assert_true (jobstore_bytes (store) > 64 * 1024);
    assert_int_equal (cJSON_GetArraySize (arr), 1);
    cJSON *run = arr->child;
    assert_true (jobtask_is_stored (run));
    assert_int_equal (jobtask_span (run), 20000);
    /* another array's task, then this one's again: a new run each */
    cJSON *other = cJSON_CreateArray ();
    const char *one[] = {"ls"};
    size_t one_len[] = {2};
    assert_int_equal (
        jobstore_append (store, other, JOBTASK_CMD, one, one_len, 1), 0);
    assert_int_equal (
        jobstore_append (store, arr, JOBTASK_CMD, one, one_len, 1), 0);
    assert_int_equal (cJSON_GetArraySize (arr), 2);
    assert_int_equal (jobtask_span (arr->child->next), 1);
    /* rewrite the first run: every other record new */
    size_t at = jobtask_first (run), start = jobstore_end (store);
    for (int k = 0; k < 20000; k++) {
        size_t rec = at;
        jobstore_view (store, &at);
        const char *strs[] = {"filled", "x"};
        assert_int_equal (k % 2 ? jobstore_copy (store, rec)
                                : jobstore_put (store, JOBTASK_FN_ARG, strs, 2),
                          0);
    }
    jobstore_move (run, start);
    at = jobtask_first (run);
    for (int k = 0; k < 20000; k++) {
        jobtask_view_t v = jobstore_view (store, &at);
        char want[32];
        snprintf (want, sizeof want, "task-%d", k);
        assert_int_equal (v.kind, JOBTASK_FN_ARG);
        assert_int_equal (v.n, 2);
        assert_string_equal (v.first, k % 2 ? "noop" : "filled");
        assert_string_equal (jobtask_next (v.first), k % 2 ? want : "x");
    }
    /* a raw value of cJSON's own is no placeholder */
    cJSON *raw = cJSON_CreateRaw ("1");
    assert_false (jobtask_is_stored (raw));
    assert_false (jobtask_is_stored (NULL));
    assert_int_equal (jobtask_span (raw), 1);
    cJSON_Delete (raw);
    cJSON_Delete (arr);
    cJSON_Delete (other);
    jobstore_destroy (&store);
    jobstore_destroy (&store); /* NULL: nothing */
}

/* The records handed over: the new owner's pointer is the data viewed,
   the store lets go of it (freed here once, by the owner; ASan would
   see a second free or a leak) and starts empty. */
static void
test_data_released (void **state)
{
    (void) state;
    jobstore_t *store = jobstore_new ();
    size_t len = 1;
    assert_null (jobstore_data (store, &len));
    assert_int_equal (len, 0);
    cJSON *arr = cJSON_CreateArray ();
    const char *strs[] = {"noop", "a"};
    size_t lens[] = {4, 1};
    assert_int_equal (
        jobstore_append (store, arr, JOBTASK_FN_ARG, strs, lens, 2), 0);
    assert_int_equal (jobstore_append (store, arr, JOBTASK_FN, strs, lens, 1),
                      0);
    char *data = jobstore_data (store, &len);
    assert_non_null (data);
    assert_int_equal (len, jobstore_bytes (store));
    size_t at = jobtask_first (arr->child);
    jobtask_view_t v = jobstore_view (store, &at);
    assert_true (v.first > data && v.first < data + len);
    assert_true (jobtask_next (jobtask_next (v.first)) <= data + len);
    v = jobstore_view (store, &at);
    assert_int_equal (v.kind, JOBTASK_FN);
    /* a lone fn's NUL is an empty string inside the records */
    assert_string_equal (jobtask_next (v.first) - 1, "");
    assert_true (jobtask_next (v.first) - 1 < data + len);
    cJSON_Delete (arr);
    size_t bytes = len;
    jobstore_release (store);
    assert_null (jobstore_data (store, &len));
    assert_int_equal (len, 0);
    assert_int_equal (jobstore_bytes (store), 0);
    assert_string_equal (data + bytes - 5, "noop"); /* still ours to read */
    jobstore_destroy (&store);
    free (data);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_same_as_cjson),
        cmocka_unit_test (test_nul_in_strings),
        cmocka_unit_test (test_raw_controls_in_strings),
        cmocka_unit_test (test_raw_controls_sized_from_file),
        cmocka_unit_test (test_braces_flag),
        cmocka_unit_test (test_fast_tasks),
        cmocka_unit_test (test_refused),
        cmocka_unit_test (test_runs_rewrite_and_grow),
        cmocka_unit_test (test_data_released),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
