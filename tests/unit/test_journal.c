/*  test_journal.c - the master's journal records: the codec and the state
    a replay rebuilds (jstate.c, pure): torn and corrupt records are
    skipped and never applied, and the good ones after them kept, wherever
    they are; version 1 lines are still read.  The files (journal.c) are
    test_journal_files.c's. */
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

#include "libcore/log.h"
#include "master/jstate.h"
#include "tests/unit/journaltest.h"
#include "tests/unit/testutil.h"

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

/* A bad record is skipped, never applied; what came before is kept, and
   so is what follows when it is good (a torn tail is dropped). */
static void
test_skips_a_bad_record (void **state)
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
    size_t bad = strlen ("deadbeef {\"t\":\"x\"}\n");
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_CRC);
    assert_int_equal (rep.bad_line, 3);
    assert_int_equal (rep.bad_at, keep);
    assert_int_equal (rep.good_bytes, strlen (buf));
    assert_int_equal (rep.bad_bytes, bad);
    assert_int_equal (rep.skipped, 1);
    assert_int_equal (rep.tail_bytes, 0);
    assert_int_equal (rep.records, 3);
    assert_non_null (cJSON_GetObjectItem (jstate_apps (st), "a1"));
    assert_non_null (cJSON_GetObjectItem (jstate_apps (st), "a2"));
    assert_null (cJSON_GetObjectItem (jstate_apps (st), "x"));
    jstate_destroy (&st);
    /* a torn last line */
    st = jstate_new ();
    strcpy (buf, good);
    memcpy (buf + keep, after, strlen (after) - 3); /* no newline */
    jstate_load (st, buf, keep + strlen (after) - 3, &rep);
    assert_int_equal (rep.status, JREC_TORN);
    assert_int_equal (rep.good_bytes, keep);
    assert_int_equal (rep.tail_bytes, strlen (after) - 3);
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

/* Random damage never crashes a load, and nothing after the last good
   record is one: a load of the bytes up to it gives the same state, the
   rest is the tail (what a writer cuts off). */
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
        assert_int_equal (rb.tail_bytes, 0);
        assert_int_equal (rb.records, ra.records);
        assert_int_equal (ra.good_bytes + ra.tail_bytes, n);
        assert_true (ra.tail_bytes <= ra.bad_bytes);
        assert_true (cJSON_Compare (jstate_execs (a), jstate_execs (b), true));
        jstate_destroy (&a);
        jstate_destroy (&b);
        free (bad);
    }
    free (buf);
}

/* --- a record torn or damaged in the middle (issue 14.2) --------------- */

/* Records h, a1, a2; then the first cut bytes of a3's line (a write cut
   short by a full disk); then a4, a5 and w1 written whole after it, as a
   writer that went on appending did.  Returns the buffer; *len its
   length, *torn the bytes of the partial record. */
static char *
s_torn_middle (size_t cut, size_t *len, size_t *torn)
{
    char *before = NULL, *a3 = NULL, *after = NULL;
    s_add (&before, "{\"t\":\"journal\",\"gen\":0}");
    s_add (&before, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\"}");
    s_add (&before, "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"RUNNING\"}");
    s_add (&a3, "{\"t\":\"app\",\"id\":\"a3\",\"state\":\"RUNNING\","
                "\"name\":\"a long enough name to cut anywhere\"}");
    s_add (&after, "{\"t\":\"app\",\"id\":\"a4\",\"state\":\"FINISHED\"}");
    s_add (&after, "{\"t\":\"app\",\"id\":\"a5\",\"state\":\"FAILED\"}");
    s_add (&after, "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}");
    assert_true (cut < strlen (a3));
    size_t nb = strlen (before), na = strlen (after);
    char *buf = malloc (nb + cut + na + 1);
    memcpy (buf, before, nb);
    memcpy (buf + nb, a3, cut);
    memcpy (buf + nb + cut, after, na + 1);
    *len = nb + cut + na;
    *torn = cut;
    free (before);
    free (a3);
    free (after);
    return buf;
}

/* A record cut short anywhere in the middle of a file: the records after
   it are proved whole by their length and CRC, and kept; the cut one is
   never applied. */
static void
test_torn_in_the_middle (void **state)
{
    (void) state;
    size_t len, torn, full;
    free (s_torn_middle (0, &full, &torn));
    for (size_t cut = 1; cut < 90; cut++) {
        char *buf = s_torn_middle (cut, &len, &torn);
        if (len - full >= 90) {
            free (buf);
            break;
        }
        jstate_t *st = jstate_new ();
        jload_t rep;
        jstate_load (st, buf, len, &rep);
        const cJSON *apps = jstate_apps (st);
        assert_non_null (cJSON_GetObjectItem (apps, "a1"));
        assert_non_null (cJSON_GetObjectItem (apps, "a2"));
        assert_null (cJSON_GetObjectItem (apps, "a3"));
        assert_non_null (cJSON_GetObjectItem (apps, "a4"));
        assert_non_null (cJSON_GetObjectItem (apps, "a5"));
        assert_string_equal (s_field (apps, "a4", "state"), "FINISHED");
        assert_string_equal (s_field (apps, "a5", "state"), "FAILED");
        assert_non_null (cJSON_GetObjectItem (jstate_workers (st), "w1"));
        /* cut in its length field, the next record's CRC reads as a length
           past the end: torn; elsewhere, a CRC mismatch */
        assert_true (rep.status == JREC_CRC || rep.status == JREC_TORN);
        assert_int_equal (rep.records, 6);
        assert_int_equal (rep.bad_line, 4);
        assert_int_equal (rep.bad_bytes, torn);
        assert_int_equal (rep.skipped, 1);
        assert_int_equal (rep.tail_bytes, 0);
        assert_int_equal (rep.good_bytes, len);
        jstate_destroy (&st);
        free (buf);
    }
}

/* A whole line whose CRC does not match (a byte changed), one whose
   length field is wrong, and records proved whole but bad inside (not an
   object, a second header): each is skipped, what follows is kept. */
static void
test_bad_records_in_the_middle (void **state)
{
    (void) state;
    char *buf = NULL, *bad = NULL;
    s_add (&buf, "{\"t\":\"journal\",\"gen\":0}");
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"RUNNING\"}");
    size_t keep = strlen (buf);
    s_add (&bad, "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"RUNNING\"}");
    size_t n2 = strlen (bad);
    bad[n2 - 5] ^= 0x01; /* inside the JSON */
    s_add (&bad, "{\"t\":\"app\",\"id\":\"a3\",\"state\":\"RUNNING\"}");
    size_t n3 = strlen (bad) - n2;
    bad[n2 + 12] = bad[n2 + 12] == '9' ? '8' : '9'; /* the length field */
    char text[64];
    snprintf (text, sizeof text, "%s", "[1,2]");
    cJSON *arr = cJSON_Parse (text);
    size_t alen;
    char *line = jstate_encode (arr, &alen); /* a good CRC, not an object */
    cJSON_Delete (arr);
    size_t nbad = strlen (bad) + alen;
    bad = realloc (bad, nbad + 1);
    strcat (bad, line);
    free (line);
    s_add (&bad, "{\"t\":\"journal\",\"gen\":5}"); /* out of order */
    nbad = strlen (bad);
    s_add (&bad, "{\"t\":\"app\",\"id\":\"a4\",\"state\":\"FINISHED\"}");
    size_t total = keep + strlen (bad);
    buf = realloc (buf, total + 1);
    strcat (buf, bad);
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, total, &rep);
    const cJSON *apps = jstate_apps (st);
    assert_non_null (cJSON_GetObjectItem (apps, "a1"));
    assert_null (cJSON_GetObjectItem (apps, "a2"));
    assert_null (cJSON_GetObjectItem (apps, "a3"));
    assert_non_null (cJSON_GetObjectItem (apps, "a4"));
    assert_string_equal (s_field (apps, "a4", "state"), "FINISHED");
    assert_int_equal (rep.status, JREC_CRC);
    assert_int_equal (rep.bad_line, 3);
    assert_int_equal (rep.records, 3);
    assert_int_equal (rep.bad_bytes, nbad);
    assert_int_equal (rep.skipped, 1); /* one stretch: they touch */
    assert_int_equal (rep.tail_bytes, 0);
    assert_int_equal (rep.good_bytes, total);
    assert_int_equal (rep.gen, 0);
    (void) n3;
    jstate_destroy (&st);
    free (buf);
    free (bad);
}

/* Journals written by version 1 ("CCCCCCCC {...}", the CRC of the JSON
   alone) are still read, alone or followed by version 2 records (a
   master upgraded on its journal appends to it). */
static void
test_version_1_lines (void **state)
{
    (void) state;
    const char *v1[] = {"{\"t\":\"journal\",\"gen\":4}",
                        "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"RUNNING\"}",
                        "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}"};
    char *buf = calloc (1, 1024);
    for (size_t i = 0; i < 3; i++)
        snprintf (buf + strlen (buf), 1024 - strlen (buf), "%08x %s\n",
                  jstate_crc32 (v1[i], strlen (v1[i])), v1[i]);
    s_add (&buf, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\"}");
    jstate_t *st = jstate_new ();
    jload_t rep;
    jstate_load (st, buf, strlen (buf), &rep);
    assert_int_equal (rep.status, JREC_OK);
    assert_int_equal (rep.records, 4);
    assert_int_equal (rep.gen, 4);
    assert_string_equal (s_field (jstate_apps (st), "a1", "state"), "FINISHED");
    assert_non_null (cJSON_GetObjectItem (jstate_workers (st), "w1"));
    jstate_destroy (&st);
    /* what this version writes: the length of the JSON after the CRC */
    char *line = NULL;
    s_add (&line, "{\"t\":\"x\"}");
    assert_int_equal (strlen (line), 18 + 9 + 1);
    assert_memory_equal (line + 8, " 00000009 {", 11);
    free (line);
    free (buf);
}

/* Random damage (seeded) never crashes a load, never applies a damaged
   record, and keeps every record it did not touch: the result equals a
   load of the untouched whole records alone. */
static void
test_random_damage_keeps_the_rest (void **state)
{
    (void) state;
    enum { n_recs = 41 };
    char *lines[n_recs], text[200];
    size_t starts[n_recs + 1], total = 0;
    for (int i = 0; i < n_recs; i++) {
        lines[i] = NULL;
        if (i == 0)
            snprintf (text, sizeof text, "{\"t\":\"journal\",\"gen\":0}");
        else
            snprintf (text, sizeof text,
                      "{\"t\":\"exec\",\"app_id\":\"a%d\",\"exec_id\":%d,"
                      "\"state\":\"%s\",\"n\":%d}",
                      i % 5, i % 7, i % 3 ? "RUNNING" : "LOST", i);
        s_add (&lines[i], text);
        starts[i] = total;
        total += strlen (lines[i]);
    }
    starts[n_recs] = total;
    char *buf = malloc (total);
    for (int i = 0; i < n_recs; i++)
        memcpy (buf + starts[i], lines[i], strlen (lines[i]));
    srand (42);
    for (int round = 0; round < 500; round++) {
        char *bad = malloc (total);
        memcpy (bad, buf, total);
        size_t n = total - (size_t) (rand () % 40);
        bool hit[n_recs] = {false};
        for (int k = 0; k < 1 + rand () % 3; k++) {
            size_t at = (size_t) rand () % n;
            char c = (char) (rand () % 256);
            if (bad[at] == c)
                continue;
            bad[at] = c;
            for (int i = 0; i < n_recs; i++)
                hit[i] |= at >= starts[i] && at < starts[i + 1];
        }
        /* the untouched whole records, alone */
        char *want = malloc (total);
        size_t wlen = 0, wrecs = 0;
        for (int i = 0; i < n_recs; i++)
            if (!hit[i] && starts[i + 1] <= n) {
                memcpy (want + wlen, lines[i], strlen (lines[i]));
                wlen += strlen (lines[i]);
                wrecs++;
            }
        jstate_t *a = jstate_new (), *b = jstate_new ();
        jload_t ra, rb;
        jstate_load (a, bad, n, &ra);
        jstate_load (b, want, wlen, &rb);
        assert_int_equal (rb.status, JREC_OK);
        assert_int_equal (ra.records, wrecs);
        assert_true (cJSON_Compare (jstate_execs (a), jstate_execs (b), true));
        jstate_destroy (&a);
        jstate_destroy (&b);
        free (want);
        free (bad);
    }
    for (int i = 0; i < n_recs; i++)
        free (lines[i]);
    free (buf);
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
        cmocka_unit_test (test_skips_a_bad_record),
        cmocka_unit_test (test_header_rules),
        cmocka_unit_test (test_random_damage),
        cmocka_unit_test (test_torn_in_the_middle),
        cmocka_unit_test (test_bad_records_in_the_middle),
        cmocka_unit_test (test_version_1_lines),
        cmocka_unit_test (test_random_damage_keeps_the_rest),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}
