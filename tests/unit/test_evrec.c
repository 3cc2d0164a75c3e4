/*  test_evrec.c - unit tests of the task events' binary records
    (libhearth/evrec.c, libhearth/evfmt.c) and of the log that carries them
    (libhearth/eventlog.c, libhearth/evfile.c, libhearth/evtask.c): every line a
    record becomes is byte for byte what the engine's in-place formatter
    wrote before the records (kept below as the reference: s_ref_*, with
    format 2's defaults left out), for
    every field kind, an error needing escaping and the largest record;
    in a log, records and the other events' lines come out in their
    order, across chunks, rolls and a line too large for the writer's
    buffer; and a writer far behind makes the engine wait rather than
    drop events. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
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

#include "libcore/safefile.h"
#include "libhearth/eventlog.h"
#include "libhearth/evfmt.h"
#include "libhearth/evrec.h"
#include "libhearth/evtask.h"
#include "tests/unit/testutil.h"

/* ---- the reference: evtask.c's formatter before the records ----------- */

#define S_PUT(o, lit)                                                          \
    (memcpy ((o), (lit), sizeof (lit) - 1), (o) + sizeof (lit) - 1)

static char *
s_ref_string (char *o, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    *o++ = '"';
    for (const unsigned char *p = (const unsigned char *) s; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *o++ = '\\';
            *o++ = (char) *p;
        }
        else if (*p == '\n') {
            *o++ = '\\';
            *o++ = 'n';
        }
        else if (*p < 0x20 || *p == 0x7f) {
            memcpy (o, "\\u00", 4);
            o[4] = hex[*p >> 4];
            o[5] = hex[*p & 15];
            o += 6;
        }
        else
            *o++ = (char) *p;
    }
    *o++ = '"';
    return o;
}

static char *
s_ref_int (char *o, int64_t value)
{
    return o + sprintf (o, "%lld", (long long) value);
}

static char *
s_ref_attempt (char *o, int64_t time_ms, uint32_t stage, uint64_t index,
               int attempt, int exec_id)
{
    o = S_PUT (o, "\",\"time_ms\":");
    o = s_ref_int (o, time_ms);
    o = S_PUT (o, ",\"stage\":");
    o = s_ref_int (o, stage);
    o = S_PUT (o, ",\"index\":");
    o = s_ref_int (o, (int64_t) index);
    o = S_PUT (o, ",\"attempt\":");
    o = s_ref_int (o, attempt);
    o = S_PUT (o, ",\"executor\":");
    return s_ref_int (o, exec_id);
}

static char *
s_ref_start (char *o, int64_t time_ms, int exec_id, const hearth_assign_t *a)
{
    o = S_PUT (o, "{\"event\":\"task_start");
    o = s_ref_attempt (o, time_ms, a->stage, a->index, a->attempt, exec_id);
    return a->speculative ? S_PUT (o, ",\"speculative\":true}\n")
                          : S_PUT (o, "}\n"); /* format 2's default */
}

static char *
s_ref_end (char *o, int64_t time_ms, const evtask_end_t *e)
{
    o = S_PUT (o, "{\"event\":\"task_end");
    o = s_ref_attempt (o, time_ms, e->stage, e->index, e->attempt, e->exec_id);
    /* format 2 leaves out FINISHED, accepted, a null error and 0 bytes */
    if (strcmp (e->state, "FINISHED") != 0) {
        o = S_PUT (o, ",\"state\":");
        o = s_ref_string (o, e->state);
    }
    if (e->out != HEARTH_TS_ACCEPT) {
        o = S_PUT (o, ",\"outcome\":");
        o = s_ref_string (o, evrec_outcome_name (e->out));
    }
    o = S_PUT (o, ",\"run_us\":");
    o = s_ref_int (o, e->run_us);
    if (e->error) {
        o = S_PUT (o, ",\"error\":");
        o = s_ref_string (o, e->error);
    }
    if (e->result_bytes) {
        o = S_PUT (o, ",\"result_bytes\":");
        o = s_ref_int (o, (int64_t) e->result_bytes);
    }
    if (e->out == HEARTH_TS_FETCH_WAIT)
        o = S_PUT (o, ",\"fetch_failed\":true");
    return S_PUT (o, "}\n");
}

/* ---- records, as evtask.c stores them ------------------------------------ */

static size_t
s_put_start (char *o, int64_t time_ms, int exec_id, const hearth_assign_t *a)
{
    evrec_start_t r = evtask_start_record (exec_id, a, time_ms);
    return (size_t) (evrec_put_start (o, &r) - o);
}

static size_t
s_put_end (char *o, int64_t time_ms, const evtask_end_t *e)
{
    evrec_end_t r = evtask_end_record (e, time_ms);
    char *end = evrec_put_end (o, &r, e->state, e->error);
    assert_int_equal (end - o, evrec_end_size (r.state_len, r.error_len));
    return (size_t) (end - o);
}

/* The record at rec formats as want (of want_len bytes), within its
   bound, and is len bytes long. */
static void
s_check_line (const char *rec, size_t len, const char *want, size_t want_len)
{
    assert_true (evrec_is_record (*rec));
    assert_int_equal (evrec_length (rec), len);
    size_t max = evrec_line_max (rec);
    char *line = malloc (max + 1);
    assert_non_null (line);
    evrec_cache_t cache = {0};
    char *end = evrec_format (line, rec, &cache);
    assert_true ((size_t) (end - line) <= max);
    *end = '\0';
    assert_int_equal (end - line, want_len);
    assert_memory_equal (line, want, want_len);
    free (line);
}

static void
s_start_case (int64_t time_ms, int exec_id, hearth_assign_t a)
{
    char rec[256], want[512];
    size_t len = s_put_start (rec, time_ms, exec_id, &a);
    char *end = s_ref_start (want, time_ms, exec_id, &a);
    s_check_line (rec, len, want, (size_t) (end - want));
}

static void
s_end_case (int64_t time_ms, evtask_end_t e)
{
    size_t elen = e.error ? strlen (e.error) : 0;
    char *rec = malloc (evrec_end_size (strlen (e.state), elen));
    char *want = malloc (1024 + 6 * elen);
    assert_non_null (rec);
    assert_non_null (want);
    size_t len = s_put_end (rec, time_ms, &e);
    char *end = s_ref_end (want, time_ms, &e);
    s_check_line (rec, len, want, (size_t) (end - want));
    free (rec);
    free (want);
}

static void
test_task_start_lines (void **state)
{
    (void) state;
    s_start_case (1796139985404, 0, (hearth_assign_t){1, 0, 0, false});
    /* pinned: format 2 names speculative only when true */
    const char *want = "{\"event\":\"task_start\",\"time_ms\":9,\"stage\":1,"
                       "\"index\":0,\"attempt\":0,\"executor\":2}\n";
    hearth_assign_t a = {1, 0, 0, false};
    char rec[256];
    size_t len = s_put_start (rec, 9, 2, &a);
    s_check_line (rec, len, want, strlen (want));
    s_start_case (1796139985404, 3, (hearth_assign_t){7, 12345, 2, true});
    s_start_case (0, 99, (hearth_assign_t){99, 100, 10, false});
    /* every field at its largest */
    s_start_case (INT64_MIN, INT_MIN,
                  (hearth_assign_t){UINT32_MAX, UINT64_MAX, INT_MIN, true});
    s_start_case (INT64_MAX, INT_MAX,
                  (hearth_assign_t){UINT32_MAX, INT64_MAX, INT_MAX, false});
}

static void
test_task_end_lines (void **state)
{
    (void) state;
    /* every outcome, with and without an error */
    for (int out = HEARTH_TS_STALE; out <= HEARTH_TS_FETCH_WAIT + 1; out++) {
        s_end_case (1796139985408,
                    (evtask_end_t){.exec_id = 0,
                                   .stage = 1,
                                   .index = 0,
                                   .attempt = 0,
                                   .state = "FINISHED",
                                   .out = (hearth_ts_outcome_t) out,
                                   .run_us = 3898,
                                   .result_bytes = 2});
        s_end_case (1796139985411,
                    (evtask_end_t){.exec_id = 4,
                                   .stage = 1,
                                   .index = 1,
                                   .attempt = 1,
                                   .state = "FAILED",
                                   .out = (hearth_ts_outcome_t) out,
                                   .run_us = 4568,
                                   .error = "sh exited with status 3: first "
                                            "try"});
    }
    /* the common case, pinned byte for byte: format 2 leaves out state,
       outcome, error and result_bytes */
    const char *want = "{\"event\":\"task_end\",\"time_ms\":5,\"stage\":1,"
                       "\"index\":2,\"attempt\":0,\"executor\":3,"
                       "\"run_us\":7}\n";
    evtask_end_t plain = {.exec_id = 3,
                          .stage = 1,
                          .index = 2,
                          .state = "FINISHED",
                          .out = HEARTH_TS_ACCEPT,
                          .run_us = 7};
    s_end_case (5, plain);
    char rec[256];
    size_t len = s_put_end (rec, 5, &plain);
    s_check_line (rec, len, want, strlen (want));
    /* LOST, an empty error, a zero run time */
    s_end_case (5, (evtask_end_t){.exec_id = 2,
                                  .stage = 3,
                                  .index = 4,
                                  .attempt = 5,
                                  .state = "LOST",
                                  .out = HEARTH_TS_RETRY,
                                  .error = ""});
    /* an error needing every kind of escaping */
    s_end_case (6, (evtask_end_t){.exec_id = 1,
                                  .stage = 2,
                                  .index = 3,
                                  .attempt = 0,
                                  .state = "FAILED",
                                  .out = HEARTH_TS_GAVE_UP,
                                  .run_us = -1,
                                  .error = "\"quoted\" back\\slash\nnew line\t"
                                           "tab \x01\x1f\x7f caf\xc3\xa9 "
                                           "\xff end\\"});
}

/* Every byte value but NUL, alone and among plain ones. */
static void
test_every_byte (void **state)
{
    (void) state;
    char s[8], want[64], got[64];
    for (int c = 1; c < 256; c++) {
        snprintf (s, sizeof s, "a%cb", c);
        char *we = s_ref_string (want, s);
        char *ge = evfmt_string (got, s, strlen (s));
        assert_int_equal (ge - got, we - want);
        assert_memory_equal (got, want, (size_t) (we - want));
        assert_true ((size_t) (ge - got) <= EVFMT_STRING_MAX (strlen (s)));
    }
    int64_t values[] = {
        0,  1,   9,         10,        99,        100,          12345,
        -1, -10, INT64_MAX, INT64_MIN, INT32_MAX, 1796139985404};
    for (size_t i = 0; i < sizeof values / sizeof *values; i++) {
        char *we = s_ref_int (want, values[i]);
        char *ge = evfmt_int (got, values[i]);
        assert_int_equal (ge - got, we - want);
        assert_memory_equal (got, want, (size_t) (we - want));
    }
}

/* The largest record: every number at its longest, the longest state and
   outcome, an error of 100,000 bytes each written as \u00XX. */
static void
test_largest_record (void **state)
{
    (void) state;
    size_t n = 100000;
    char *error = malloc (n + 1);
    assert_non_null (error);
    for (size_t i = 0; i < n; i++)
        error[i] = (char) (1 + i % 31); /* 1..31, none of them \n alone */
    error[n] = '\0';
    s_end_case (INT64_MIN, (evtask_end_t){.exec_id = INT_MIN,
                                          .stage = UINT32_MAX,
                                          .index = UINT64_MAX,
                                          .attempt = INT_MIN,
                                          .state = "FINISHED",
                                          .out = HEARTH_TS_FETCH_WAIT,
                                          .run_us = INT64_MIN,
                                          .error = error,
                                          .result_bytes = SIZE_MAX});
    free (error);
}

/* Records back to back walk by their lengths. */
static void
test_records_in_a_row (void **state)
{
    (void) state;
    char buf[1024], want[4096], *o = buf, *w = want;
    hearth_assign_t a = {2, 7, 0, false};
    evtask_end_t e = {.exec_id = 1,
                      .stage = 2,
                      .index = 7,
                      .state = "KILLED",
                      .out = HEARTH_TS_RELEASED,
                      .error = "killed as asked"};
    for (int i = 0; i < 3; i++) {
        o += s_put_start (o, 10 + i, 1, &a);
        w = s_ref_start (w, 10 + i, 1, &a);
        o += s_put_end (o, 20 + i, &e);
        w = s_ref_end (w, 20 + i, &e);
    }
    char got[4096], *g = got;
    evrec_cache_t cache = {0}; /* one for all: the times change */
    for (const char *p = buf; p < o; p += evrec_length (p))
        g = evrec_format (g, p, &cache);
    assert_int_equal (g - got, w - want);
    assert_memory_equal (got, want, (size_t) (w - want));
}

/* ---- through the log ----------------------------------------------------- */

/* The text of every file of app's log in dir, in order; *nfiles set. */
static char *
s_read_log (const char *dir, const char *app, size_t *len, int *nfiles,
            uint64_t roll)
{
    size_t size = 0, cap = 1 << 20;
    char *all = malloc (cap);
    assert_non_null (all);
    int n = 0;
    for (;; n++) {
        char path[512];
        if (n == 0)
            snprintf (path, sizeof path, "%s/%s.events", dir, app);
        else
            snprintf (path, sizeof path, "%s/%s.events.%d", dir, app, n);
        FILE *f = fopen (path, "r");
        if (!f)
            break;
        size_t file = 0, got;
        for (;;) {
            if (size + 65536 > cap)
                all = realloc (all, cap *= 2);
            assert_non_null (all);
            got = fread (all + size, 1, 65536, f);
            if (!got)
                break;
            size += got;
            file += got;
        }
        fclose (f);
        /* a file ends between lines, within the roll size */
        assert_true (file > 0);
        assert_int_equal (all[size - 1], '\n');
        if (roll)
            assert_true (file <= roll);
        unlink (path);
    }
    *len = size;
    *nfiles = n;
    return all;
}

/* Many task events (more than a chunk holds) among rare events, one of
   them larger than the writer's buffer, rolling every 1 MiB: the files
   in order are the reference lines in order. */
static void
test_log_order (void **state)
{
    (void) state;
    char dir[] = "test_evrec.XXXXXX";
    hearth_test_tmpdir (dir);
    hearth_error_t err;
    eventlog_t *el = eventlog_new (dir, "app-1", 1024 * 1024, &err);
    assert_non_null (el);
    size_t big = 400 * 1024, cap = 16 << 20, wlen = 0;
    char *want = malloc (cap), *huge = malloc (big + 1);
    assert_non_null (want);
    assert_non_null (huge);
    memset (huge, 'x', big);
    huge[big] = '\0';
    eventlog_hold_clock (el);
    int64_t t = eventlog_time_ms (el);
    char tbuf[32];
    snprintf (tbuf, sizeof tbuf, "%lld", (long long) t);
    for (int i = 0; i < 30000; i++) {
        if (i % 5000 == 0) { /* a rare event between the task ones */
            const char *text = i == 10000 ? huge : "stage";
            eventlog_begin (el, "stage_start");
            eventlog_int (el, "stage", i);
            eventlog_str (el, "name", text);
            eventlog_end (el);
            wlen += (size_t) sprintf (want + wlen,
                                      "{\"event\":\"stage_start\",\"time_ms\":"
                                      "%s,\"stage\":%d,\"name\":\"%s\"}\n",
                                      tbuf, i, text);
        }
        hearth_assign_t a = {1, (uint64_t) i, i % 3, i % 7 == 0};
        evtask_start (el, i % 4, &a);
        wlen = (size_t) (s_ref_start (want + wlen, t, i % 4, &a) - want);
        evtask_end_t e = {.exec_id = i % 4,
                          .stage = 1,
                          .index = (uint64_t) i,
                          .attempt = i % 3,
                          .state = i % 11 ? "FINISHED" : "FAILED",
                          .out = i % 11 ? HEARTH_TS_ACCEPT : HEARTH_TS_RETRY,
                          .run_us = i,
                          .error = i % 11 ? NULL : "exit \"3\"\n",
                          .result_bytes = (size_t) i % 100};
        evtask_end (el, &e);
        wlen = (size_t) (s_ref_end (want + wlen, t, &e) - want);
        assert_true (wlen + big + 1024 < cap);
    }
    eventlog_release_clock (el);
    eventlog_totals_t *tot = eventlog_totals (el);
    assert_int_equal (tot->tasks_succeeded, 30000 - 30000 / 11 - 1);
    assert_int_equal (tot->tasks_failed, 30000 / 11 + 1);
    eventlog_destroy (&el);
    assert_null (el);
    size_t len;
    int nfiles;
    char *got = s_read_log (dir, "app-1", &len, &nfiles, 1024 * 1024);
    assert_true (nfiles > 5);
    assert_int_equal (len, wlen);
    assert_memory_equal (got, want, wlen);
    free (got);
    free (want);
    free (huge);
    rmdir (dir);
}

/* The FIFO standing for a slow disk, while test_writer_behind runs. */
static const char *s_fifo;

/* The event log creates each file new (O_EXCL | O_NOFOLLOW,
   libcore/safefile.h): a FIFO left at its name would be refused, as any
   file is.  This build of the test renames the event log's calls to
   hearth_file_create to this stand-in (local.mk), which opens the test's
   own FIFO as it is and creates every other file as the event log does. */
#undef hearth_file_create
int hearth_file_create (const char *path, int flags, mode_t mode, bool replace);
int
test_evrec_file_create (const char *path, int flags, mode_t mode, bool replace)
{
    if (s_fifo && strcmp (path, s_fifo) == 0)
        return open (path, flags | O_CLOEXEC);
    return hearth_file_create (path, flags, mode, replace);
}

/* A reader of a FIFO standing for a slow disk: it waits delay_ms before
   reading, then counts lines. */
typedef struct {
    char path[512];   /* the FIFO */
    int delay_ms;     /* before the first read */
    uint64_t lines;   /* lines read */
    uint64_t dropped; /* events_dropped lines among them */
    char last[256];   /* the start of the last line */
    pthread_t thread; /* the reader */
} s_reader_t;

static void *
s_reader (void *arg)
{
    s_reader_t *r = arg;
    int fd = open (r->path, O_RDONLY);
    if (fd < 0)
        return NULL;
    usleep ((useconds_t) r->delay_ms * 1000);
    static char buf[1 << 16];
    char line[256];
    size_t at = 0;
    ssize_t n;
    while ((n = read (fd, buf, sizeof buf)) > 0)
        for (ssize_t i = 0; i < n; i++) {
            if (at < sizeof line - 1)
                line[at++] = buf[i];
            if (buf[i] != '\n')
                continue;
            line[at] = '\0';
            r->lines++;
            if (strstr (line, "\"events_dropped\""))
                r->dropped++;
            memcpy (r->last, line, sizeof r->last);
            at = 0;
        }
    close (fd);
    return NULL;
}

/* The writer stalled for a second while the engine stores far more than
   the bound on what may wait (about 90 MB of records): the engine waits
   for it, and every event is written. */
static void
test_writer_behind (void **state)
{
    (void) state;
    char dir[] = "test_evrec.XXXXXX";
    hearth_test_tmpdir (dir);
    s_reader_t r = {.delay_ms = 1000};
    snprintf (r.path, sizeof r.path, "%s/app-2.events", dir);
    assert_int_equal (mkfifo (r.path, 0600), 0);
    s_fifo = r.path;
    assert_int_equal (pthread_create (&r.thread, NULL, s_reader, &r), 0);
    hearth_error_t err;
    eventlog_t *el = eventlog_new (dir, "app-2", 0, &err);
    assert_non_null (el);
    char error[401];
    memset (error, 'e', 400);
    error[400] = '\0';
    uint64_t n = 200000;
    for (uint64_t i = 0; i < n; i++)
        evtask_end (el, &(evtask_end_t){.exec_id = 1,
                                        .stage = 1,
                                        .index = i,
                                        .state = "FAILED",
                                        .out = HEARTH_TS_RETRY,
                                        .error = error});
    eventlog_destroy (&el);
    pthread_join (r.thread, NULL);
    s_fifo = NULL;
    assert_int_equal (r.dropped, 0);
    assert_int_equal (r.lines, n);
    char want[128];
    snprintf (want, sizeof want, "\"index\":%llu,",
              (unsigned long long) (n - 1));
    assert_non_null (strstr (r.last, want));
    unlink (r.path);
    rmdir (dir);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_task_start_lines),
        cmocka_unit_test (test_task_end_lines),
        cmocka_unit_test (test_every_byte),
        cmocka_unit_test (test_largest_record),
        cmocka_unit_test (test_records_in_a_row),
        cmocka_unit_test (test_log_order),
        cmocka_unit_test (test_writer_behind),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
