/*  test_journal.c - the master's journal: the record codec and the state a
    replay rebuilds (jstate.c, pure), and the files (journal.c) in a scratch
    directory: torn and corrupt tails are skipped and never applied, a
    compaction keeps the state, one master per directory. */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/log.h"
#include "master/journal.h"
#include "master/jstate.h"
#include "tests/unit/testutil.h"

/* A record from JSON text (the test's own, always valid). */
static cJSON *
s_rec (const char *json)
{
    cJSON *r = cJSON_Parse (json);
    assert_non_null (r);
    return r;
}

/* Append the encoded record to buf (a growing string). */
static void
s_add (char **buf, const char *json)
{
    cJSON *r = s_rec (json);
    size_t len;
    char *line = jstate_encode (r, &len);
    assert_non_null (line);
    size_t old = *buf ? strlen (*buf) : 0;
    *buf = realloc (*buf, old + len + 1);
    memcpy (*buf + old, line, len + 1);
    free (line);
    cJSON_Delete (r);
}

static const char *
s_field (const cJSON *obj, const char *key, const char *field)
{
    const cJSON *rec = cJSON_GetObjectItemCaseSensitive (obj, key);
    const cJSON *v = cJSON_GetObjectItemCaseSensitive (rec, field);
    return cJSON_IsString (v) ? v->valuestring : NULL;
}

/* The keys of obj, space-separated, into buf. */
static const char *
s_keys (const cJSON *obj, char *buf, size_t size)
{
    buf[0] = '\0';
    for (const cJSON *c = obj->child; c; c = c->next) {
        strncat (buf, c->string, size - strlen (buf) - 2);
        if (c->next)
            strcat (buf, " ");
    }
    return buf;
}

/* --- codec ------------------------------------------------------------- */

static void
test_crc (void **state)
{
    (void) state;
    assert_int_equal (jstate_crc32 ("123456789", 9), 0xcbf43926u);
    assert_int_equal (jstate_crc32 ("", 0), 0);
}

static void
test_roundtrip (void **state)
{
    (void) state;
    cJSON *r = s_rec ("{\"t\":\"app\",\"id\":\"a\",\"name\":\"two\\nlines\"}");
    size_t len, used;
    char *line = jstate_encode (r, &len);
    assert_non_null (line);
    assert_int_equal (strlen (line), len);
    assert_int_equal (line[len - 1], '\n');
    assert_null (memchr (line, '\n', len - 1)); /* one line */
    cJSON *back;
    assert_int_equal (jstate_decode (line, len, &used, &back), JREC_OK);
    assert_int_equal (used, len);
    assert_true (cJSON_Compare (r, back, true));
    cJSON_Delete (back);
    cJSON_Delete (r);
    free (line);
}

static void
test_decode_errors (void **state)
{
    (void) state;
    size_t used;
    cJSON *r;
    char *line = NULL;
    s_add (&line, "{\"t\":\"app\",\"id\":\"a\"}");
    size_t len = strlen (line);
    /* cut short anywhere: torn, the whole rest used */
    for (size_t n = 0; n < len; n++) {
        assert_int_equal (jstate_decode (line, n, &used, &r), JREC_TORN);
        assert_null (r);
        assert_int_equal (used, n);
    }
    /* any one byte changed: never accepted */
    for (size_t i = 0; i < len - 1; i++) {
        char *bad = strdup (line);
        bad[i] ^= 0x01;
        jrec_status_t st = jstate_decode (bad, len, &used, &r);
        assert_int_not_equal (st, JREC_OK);
        assert_null (r);
        free (bad);
    }
    free (line);
    const char *no_crc = "{\"t\":\"app\"}\n";
    assert_int_equal (jstate_decode (no_crc, strlen (no_crc), &used, &r),
                      JREC_CRC);
    /* a good CRC over what is not an object, or has no type */
    char buf[128];
    const char *texts[] = {"[1,2]", "{\"id\":\"a\"}", "{\"t\":1}",
                           "{\"t\":\"x\"} x"};
    jrec_status_t want[] = {JREC_JSON, JREC_TYPE, JREC_TYPE, JREC_JSON};
    for (size_t i = 0; i < 4; i++) {
        snprintf (buf, sizeof buf, "%08x %s\n",
                  jstate_crc32 (texts[i], strlen (texts[i])), texts[i]);
        assert_int_equal (jstate_decode (buf, strlen (buf), &used, &r),
                          want[i]);
        assert_null (r);
    }
    assert_string_equal (jstate_status_text (JREC_CRC), "CRC mismatch");
}

/* --- state ------------------------------------------------------------- */

static void
test_replay_order (void **state)
{
    (void) state;
    char *buf = NULL, keys[512];
    s_add (&buf, "{\"t\":\"journal\",\"gen\":3}");
    s_add (&buf, "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}");
    s_add (&buf, "{\"t\":\"worker\",\"id\":\"w2\",\"state\":\"ALIVE\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"WAITING\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"WAITING\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a3\",\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"exec\",\"app_id\":\"a1\",\"exec_id\":0,"
                 "\"state\":\"LAUNCHING\"}");
    s_add (&buf, "{\"t\":\"exec\",\"app_id\":\"a1\",\"exec_id\":1,"
                 "\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"exec\",\"app_id\":\"a1\",\"exec_id\":0,"
                 "\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"exec\",\"app_id\":\"a1\",\"exec_id\":1,"
                 "\"state\":\"LOST\"}");
    s_add (&buf, "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"DEAD\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\","
                 "\"reason\":\"again\"}");
    s_add (&buf, "{\"t\":\"some-future-type\",\"id\":\"z\"}");
    s_add (&buf, "{\"t\":\"driver\",\"id\":\"d1\",\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"driver-\",\"id\":\"d1\"}");
    s_add (&buf, "{\"t\":\"worker-\",\"id\":\"w2\"}");
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_OK);
    assert_int_equal (rep.records, 18);
    assert_int_equal (rep.unknown, 1);
    assert_int_equal (rep.good_bytes, strlen (buf));
    assert_string_equal (rep.header, "journal");
    assert_int_equal (rep.gen, 3);
    assert_false (rep.ended);
    assert_string_equal (s_keys (jstate_workers (st), keys, sizeof keys), "w1");
    assert_string_equal (s_field (jstate_workers (st), "w1", "state"), "DEAD");
    /* a1 ended: after the active ones; ending twice does not move it */
    assert_string_equal (s_keys (jstate_apps (st), keys, sizeof keys),
                         "a2 a3 a1");
    assert_string_equal (s_field (jstate_apps (st), "a1", "reason"), "again");
    assert_string_equal (s_field (jstate_apps (st), "a2", "state"), "RUNNING");
    assert_string_equal (s_keys (jstate_execs (st), keys, sizeof keys), "a1/0");
    assert_string_equal (s_field (jstate_execs (st), "a1/0", "state"),
                         "RUNNING");
    assert_null (jstate_drivers (st)->child);
    assert_false (jstate_empty (st));
    jstate_destroy (&st);
    assert_null (st);
    jstate_destroy (&st);
    free (buf);
}

static void
test_bad_keys (void **state)
{
    (void) state;
    jstate_t *st = jstate_new ();
    const char *bad[] = {"{\"t\":\"worker\"}",
                         "{\"t\":\"app\",\"id\":\"\"}",
                         "{\"t\":\"exec\",\"app_id\":\"a\"}",
                         "{\"t\":\"exec\",\"app_id\":\"a\",\"exec_id\":-1}",
                         "{\"t\":\"exec\",\"app_id\":\"a\",\"exec_id\":1.5}",
                         "{\"t\":\"exec\",\"app_id\":\"a\",\"exec_id\":1e300}",
                         "{\"t\":\"exec\",\"app_id\":1,\"exec_id\":1}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cJSON *r = s_rec (bad[i]);
        assert_int_equal (jstate_apply (st, r), -1);
        cJSON_Delete (r);
    }
    assert_true (jstate_empty (st));
    jstate_destroy (&st);
}

/* A bad record stops the load: what came before is kept, what follows is
   never applied, even when it is itself good. */
static void
test_stops_at_first_bad (void **state)
{
    (void) state;
    char *good = NULL;
    s_add (&good, "{\"t\":\"journal\",\"gen\":0}");
    s_add (&good, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"RUNNING\"}");
    size_t keep = strlen (good);
    char *after = NULL;
    s_add (&after, "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"RUNNING\"}");
    char *buf = malloc (keep + 64 + strlen (after) + 1);
    snprintf (buf, keep + 64 + strlen (after) + 1,
              "%sdeadbeef {\"t\":\"x\"}\n%s", good, after);
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_CRC);
    assert_int_equal (rep.bad_line, 3);
    assert_int_equal (rep.good_bytes, keep);
    assert_int_equal (rep.bad_bytes, strlen (buf) - keep);
    assert_int_equal (rep.records, 2);
    assert_non_null (cJSON_GetObjectItem (jstate_apps (st), "a1"));
    assert_null (cJSON_GetObjectItem (jstate_apps (st), "a2"));
    jstate_destroy (&st);
    /* a torn last line */
    st = jstate_new ();
    strcpy (buf, good);
    memcpy (buf + keep, after, strlen (after) - 3); /* no newline */
    jstate_load (st, buf, keep + strlen (after) - 3, &rep);
    assert_int_equal (rep.status, JREC_TORN);
    assert_int_equal (rep.good_bytes, keep);
    assert_null (cJSON_GetObjectItem (jstate_apps (st), "a2"));
    jstate_destroy (&st);
    free (buf);
    free (after);
    free (good);
}

static void
test_header_rules (void **state)
{
    (void) state;
    char *buf = NULL;
    s_add (&buf, "{\"t\":\"snapshot\",\"gen\":7}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"RUNNING\"}");
    s_add (&buf, "{\"t\":\"end\",\"records\":1}");
    size_t whole = strlen (buf);
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, whole, &rep);
    assert_int_equal (rep.status, JREC_OK);
    assert_true (rep.ended);
    assert_string_equal (rep.header, "snapshot");
    assert_int_equal (rep.gen, 7);
    jstate_destroy (&st);
    /* nothing after the end; no second header */
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a2\"}");
    st = jstate_new ();
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_ORDER);
    assert_int_equal (rep.good_bytes, whole);
    jstate_destroy (&st);
    free (buf);
    buf = NULL;
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\"}");
    s_add (&buf, "{\"t\":\"journal\",\"gen\":1}");
    st = jstate_new ();
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_ORDER);
    assert_null (rep.header);
    assert_int_equal (rep.gen, -1);
    jstate_destroy (&st);
    free (buf);
}

/* Random damage never crashes a load, and a load only ever applies a
   prefix of the records: the result equals a load of the good bytes. */
static void
test_random_damage (void **state)
{
    (void) state;
    char *buf = NULL, text[200];
    s_add (&buf, "{\"t\":\"journal\",\"gen\":0}");
    for (int i = 0; i < 40; i++) {
        snprintf (text, sizeof text,
                  "{\"t\":\"exec\",\"app_id\":\"a%d\",\"exec_id\":%d,"
                  "\"state\":\"%s\"}",
                  i % 5, i % 7, i % 3 ? "RUNNING" : "LOST");
        s_add (&buf, text);
    }
    size_t len = strlen (buf);
    srand (42);
    for (int round = 0; round < 500; round++) {
        char *bad = malloc (len);
        memcpy (bad, buf, len);
        size_t n = len - (size_t) (rand () % 40);
        for (int k = 0; k < 1 + rand () % 3; k++)
            bad[rand () % n] = (char) (rand () % 256);
        jstate_t *a = jstate_new (), *b = jstate_new ();
        jload_t ra, rb;
        jstate_load (a, bad, n, &ra);
        jstate_load (b, bad, ra.good_bytes, &rb);
        assert_int_equal (rb.status, JREC_OK);
        assert_int_equal (ra.good_bytes + ra.bad_bytes, n);
        assert_true (cJSON_Compare (jstate_execs (a), jstate_execs (b), true));
        jstate_destroy (&a);
        jstate_destroy (&b);
        free (bad);
    }
    free (buf);
}

/* --- files ------------------------------------------------------------- */

static char s_dir[64];

static void
s_dump (void *arg, journal_emit_fn *emit, void *emit_arg)
{
    const char *const *records = arg;
    for (size_t i = 0; records[i]; i++) {
        cJSON *r = s_rec (records[i]);
        emit (emit_arg, r, false);
        cJSON_Delete (r);
    }
}

static void
s_append (journal_t *j, const char *json, bool sync)
{
    cJSON *r = s_rec (json);
    assert_int_equal (journal_append (j, r, sync), 0);
    cJSON_Delete (r);
}

static bool
s_exists (const char *name)
{
    char path[256];
    snprintf (path, sizeof path, "%s/%s", s_dir, name);
    return access (path, F_OK) == 0;
}

static int
s_rm (const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void) sb;
    (void) ftw;
    return flag == FTW_DP ? rmdir (path) : unlink (path);
}

static void
test_files (void **state)
{
    (void) state;
    hearth_error_t err;
    jstate_t *st = NULL;
    snprintf (s_dir, sizeof s_dir, "test_journal.XXXXXX");
    hearth_test_tmpdir (s_dir);
    strcat (s_dir, "/j");
    journal_t *j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    assert_true (jstate_empty (st));
    jstate_destroy (&st);
    struct stat sb;
    assert_int_equal (stat (s_dir, &sb), 0);
    assert_int_equal (sb.st_mode & 0777, 0700);
    assert_int_equal (journal_gen (j), 0);
    /* one master per directory */
    jstate_t *other = NULL;
    assert_null (journal_open (s_dir, &other, &err));
    assert_contains (err.text, "in use by another master");
    assert_null (other);
    s_append (j, "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}", false);
    s_append (j, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"RUNNING\"}", true);
    assert_int_equal (journal_sync (j), 0);
    journal_destroy (&j);
    assert_null (j);

    /* a torn record at the end, as a kill -9 in a write would leave */
    char path[256];
    snprintf (path, sizeof path, "%s/journal.0", s_dir);
    int fd = open (path, O_WRONLY | O_APPEND);
    assert_true (write (fd, "0123abcd {\"t\":\"app\",\"id\":\"a2", 29) == 29);
    close (fd);
    j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    assert_non_null (cJSON_GetObjectItem (jstate_apps (st), "a1"));
    assert_null (cJSON_GetObjectItem (jstate_apps (st), "a2"));
    assert_non_null (cJSON_GetObjectItem (jstate_workers (st), "w1"));
    jstate_destroy (&st);
    assert_true (s_exists ("journal.0.bad")); /* kept aside */
    /* appends go after the good part */
    s_append (j, "{\"t\":\"app\",\"id\":\"a3\",\"state\":\"WAITING\"}", false);
    journal_destroy (&j);
    j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    assert_non_null (cJSON_GetObjectItem (jstate_apps (st), "a3"));
    jstate_destroy (&st);

    /* compaction: a snapshot of the dump, a new generation */
    const char *records[] = {
        "{\"t\":\"worker\",\"id\":\"w9\",\"state\":\"ALIVE\"}",
        "{\"t\":\"app\",\"id\":\"a9\",\"state\":\"RUNNING\"}",
        "{\"t\":\"exec\",\"app_id\":\"a9\",\"exec_id\":0,\"state\":"
        "\"RUNNING\"}",
        NULL};
    assert_int_equal (journal_compact (j, s_dump, records, &err), 0);
    assert_int_equal (journal_gen (j), 1);
    assert_true (s_exists ("snapshot"));
    assert_true (s_exists ("journal.1"));
    assert_false (s_exists ("journal.0"));
    assert_false (s_exists ("snapshot.tmp"));
    s_append (j,
              "{\"t\":\"exec\",\"app_id\":\"a9\",\"exec_id\":1,"
              "\"state\":\"LAUNCHING\"}",
              false);
    journal_destroy (&j);
    j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    assert_int_equal (journal_gen (j), 1);
    char keys[256];
    assert_string_equal (s_keys (jstate_workers (st), keys, sizeof keys), "w9");
    assert_string_equal (s_keys (jstate_apps (st), keys, sizeof keys), "a9");
    assert_string_equal (s_keys (jstate_execs (st), keys, sizeof keys),
                         "a9/0 a9/1");
    jstate_destroy (&st);

    /* a crash after the new snapshot, before its journal: still right */
    assert_int_equal (journal_compact (j, s_dump, records, &err), 0);
    journal_destroy (&j);
    snprintf (path, sizeof path, "%s/journal.2", s_dir);
    unlink (path);
    snprintf (path, sizeof path, "%s/journal.1", s_dir);
    fd = open (path, O_WRONLY | O_CREAT, 0600); /* a stale older journal */
    close (fd);
    j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    assert_int_equal (journal_gen (j), 2);
    assert_false (s_exists ("journal.1"));
    assert_string_equal (s_keys (jstate_execs (st), keys, sizeof keys), "a9/0");
    jstate_destroy (&st);
    journal_destroy (&j);
    s_dir[strlen (s_dir) - 2] = '\0'; /* the scratch directory */
    assert_int_equal (nftw (s_dir, s_rm, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    hearth_log_open ("test_journal", "error", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_crc),
        cmocka_unit_test (test_roundtrip),
        cmocka_unit_test (test_decode_errors),
        cmocka_unit_test (test_replay_order),
        cmocka_unit_test (test_bad_keys),
        cmocka_unit_test (test_stops_at_first_bad),
        cmocka_unit_test (test_header_rules),
        cmocka_unit_test (test_random_damage),
        cmocka_unit_test (test_files),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}
