/*  test_hist_dir.c - hearth-history over a directory: log names and
    rolled files (scan.c), a cut last line, FIFOs and links at a log's or
    the index's name (never waited on), the index's invalidation and
    its atomic, optional file (index.c), the listing's filters and order
    (list.c), --since's forms, and the running-or-failed rule (live.c). */
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <cmocka.h>

#include "history/appview.h"
#include "history/index.h"
#include "history/list.h"
#include "history/live.h"
#include "history/scan.h"
#include "libcore/fstree.h"
#include "tests/unit/testutil.h"

static char s_dir[256];

static int
s_setup (void **state)
{
    (void) state;
    snprintf (s_dir, sizeof s_dir, "%s/hist-dir-XXXXXX",
              getenv ("TMPDIR") ? getenv ("TMPDIR") : "/tmp");
    return mkdtemp (s_dir) ? 0 : -1;
}

static int
s_teardown (void **state)
{
    (void) state;
    hearth_rm_tree (s_dir);
    return 0;
}

static void
s_write (const char *name, const char *text)
{
    char path[512];
    snprintf (path, sizeof path, "%s/%s", s_dir, name);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* A whole log: log_start at start_ms, then app_end state (NULL: none). */
static void
s_log (const char *id, const char *name, int64_t start_ms, const char *state,
       int64_t pid)
{
    char text[2048], file[128];
    int n = snprintf (text, sizeof text,
                      "{\"event\":\"log_start\",\"time_ms\":%lld,\"format\":1,"
                      "\"app_id\":\"%s\",\"name\":\"%s\",\"user\":\"u\"}\n"
                      "{\"event\":\"app_start\",\"time_ms\":%lld,\"app_id\":"
                      "\"%s\",\"master\":\"local[2]\",\"pid\":%lld}\n",
                      (long long) start_ms, id, name, (long long) start_ms, id,
                      (long long) pid);
    if (state)
        snprintf (text + n, sizeof text - (size_t) n,
                  "{\"event\":\"app_end\",\"time_ms\":%lld,\"state\":\"%s\","
                  "\"reason\":\"r\"}\n",
                  (long long) start_ms + 5000, state);
    snprintf (file, sizeof file, "%s.events", id);
    s_write (file, text);
}

static void
test_names (void **state)
{
    (void) state;
    size_t len;
    unsigned no;
    assert_true (hist_log_name ("app-1.events", &len, &no));
    assert_int_equal (len, 5);
    assert_int_equal (no, 0);
    assert_true (hist_log_name ("app-1.events.12", &len, &no));
    assert_int_equal (no, 12);
    assert_false (hist_log_name ("app-1.events.0", &len, &no));
    assert_false (hist_log_name ("app-1.events.x", &len, &no));
    assert_false (hist_log_name ("app-1.events.1x", &len, &no));
    assert_false (hist_log_name (".events", &len, &no));
    assert_false (hist_log_name (".hidden.events", &len, &no));
    assert_false (hist_log_name ("README", &len, &no));
    assert_false (hist_log_name ("app.eventsx", &len, &no));
}

typedef struct {
    char text[8192]; /* the lines, each ending in '|' */
    int n;           /* how many */
} s_lines_t;

static int
s_collect (void *arg, const char *text, size_t len, bool first)
{
    s_lines_t *l = arg;
    size_t used = strlen (l->text);
    snprintf (l->text + used, sizeof l->text - used, "%s%.*s|",
              first ? "^" : "", (int) len, text);
    l->n++;
    return 0;
}

/* The lengths of the lines given, "^" before the first's. */
static int
s_collect_len (void *arg, const char *text, size_t len, bool first)
{
    (void) text;
    s_lines_t *l = arg;
    size_t used = strlen (l->text);
    snprintf (l->text + used, sizeof l->text - used, "%s%zu|", first ? "^" : "",
              len);
    l->n++;
    return 0;
}

/* Rolled files are one log, read in number order (.10 after .2); the
   last line without its newline is not given, and said. */
static void
test_rolled_and_cut (void **state)
{
    (void) state;
    s_write ("app-2.events", "a\nb\n");
    s_write ("app-2.events.1", "c\n");
    s_write ("app-2.events.2", "d\n");
    s_write ("app-2.events.10", "e\nhalf");
    s_write ("other.txt", "x\n");
    hist_dir_t d;
    hearth_error_t err;
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    assert_int_equal (d.n, 1);
    const hist_log_t *log = hist_dir_find (&d, "app-2");
    assert_non_null (log);
    assert_int_equal (log->nfiles, 4);
    assert_string_equal (log->files[3].name, "app-2.events.10");
    s_lines_t l = {{0}, 0};
    hist_read_t rd;
    assert_int_equal (hist_log_read (s_dir, log, s_collect, &l, &rd, &err), 0);
    assert_string_equal (l.text, "^a|b|c|d|e|");
    assert_true (rd.cut);
    assert_int_equal (rd.long_lines, 0);
    assert_null (hist_dir_find (&d, "app-3"));
    hist_dir_release (&d);
    /* a missing directory: an error naming it */
    char missing[300];
    snprintf (missing, sizeof missing, "%s/none", s_dir);
    assert_int_equal (hist_dir_scan (missing, &d, &err), -1);
    assert_contains (err.text, "none");
    assert_contains (err.text, "No such file");
}

/* DIR may be shared: a FIFO put at a log's name after the scan (or a
   link to one) is refused at once, never waited on; a symbolic link is
   not followed; a FIFO at the index's name is no index, and the listing
   goes on without one. */
static void
test_fifos_do_not_block (void **state)
{
    (void) state;
    char path[1100], target[512];
    hist_dir_t d;
    hearth_error_t err;
    hist_read_t rd;
    s_lines_t l = {{0}, 0};
    s_write ("app-f.events", "a\n");
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    const hist_log_t *log = hist_dir_find (&d, "app-f");
    assert_non_null (log);
    snprintf (path, sizeof path, "%s/app-f.events", s_dir);
    assert_int_equal (unlink (path), 0);
    assert_int_equal (mkfifo (path, 0600), 0);
    assert_int_equal (hist_log_read (s_dir, log, s_collect, &l, &rd, &err), -1);
    assert_contains (err.text, "app-f.events: it is not a regular file");
    assert_int_equal (unlink (path), 0);
    s_write ("elsewhere", "b\n");
    snprintf (target, sizeof target, "%s/elsewhere", s_dir);
    assert_int_equal (symlink (target, path), 0);
    assert_int_equal (hist_log_read (s_dir, log, s_collect, &l, &rd, &err), -1);
    assert_contains (err.text, "app-f.events: it is a symbolic link");
    hist_dir_release (&d);
    assert_int_equal (unlink (path), 0);
    /* the index */
    char idir[540];
    snprintf (idir, sizeof idir, "%s/%s", s_dir, HIST_INDEX_DIR);
    assert_int_equal (mkdir (idir, 0755), 0);
    snprintf (path, sizeof path, "%s/%s", idir, HIST_INDEX_FILE);
    assert_int_equal (mkfifo (path, 0600), 0);
    hist_index_t *idx = hist_index_load (s_dir);
    assert_non_null (idx);
    assert_int_equal (hist_index_loaded (idx), 0);
    hist_index_destroy (&idx);
}

/* A line over HIST_MAX_LINE is skipped while it is read, counted, never
   given; one of exactly that size is given; a long first line makes the
   log no log; a long line at a rolled file's end or cut at the end
   too. */
static void
test_long_lines (void **state)
{
    (void) state;
    size_t big = HIST_MAX_LINE + 1;
    char *text = malloc (5 * big);
    assert_non_null (text);
    /* a, a line of HIST_MAX_LINE, b, one of HIST_MAX_LINE + 1, c, then
       one of 2 MiB and d */
    char *p = text;
    p += sprintf (p, "a\n");
    memset (p, 'x', HIST_MAX_LINE);
    p += HIST_MAX_LINE;
    p += sprintf (p, "\nb\n");
    memset (p, 'y', big);
    p += big;
    p += sprintf (p, "\nc\n");
    memset (p, 'z', 2 * big);
    p += 2 * big;
    sprintf (p, "\nd\n");
    s_write ("app-5.events", text);
    s_write ("app-5.events.1", "e\n");
    hist_dir_t d;
    hearth_error_t err;
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    s_lines_t l = {{0}, 0};
    hist_read_t rd;
    assert_int_equal (hist_log_read (s_dir, hist_dir_find (&d, "app-5"),
                                     s_collect_len, &l, &rd, &err),
                      0);
    assert_string_equal (l.text, "^1|1048576|1|1|1|1|");
    assert_int_equal (rd.long_lines, 2);
    assert_int_equal (rd.longest, 2 * big);
    assert_false (rd.cut);
    assert_contains (rd.long_file, "app-5.events");
    char *warn = NULL;
    size_t wlen = 0;
    FILE *w = open_memstream (&warn, &wlen);
    hist_read_warn (w, s_dir, &rd);
    fclose (w);
    assert_contains (warn, "app-5.events: skipped 2 lines over 1 MiB (the "
                           "longest 2097154 bytes)");
    free (warn);
    hist_dir_release (&d);
    /* a long first line; a long line ending a rolled file; one cut */
    memset (text, 'q', big);
    sprintf (text + big, "\nf\n");
    s_write ("app-5.events", text);
    text[big] = '\0';
    s_write ("app-5.events.1", text);
    s_write ("app-5.events.2", "g\n");
    s_write ("app-5.events.3", text);
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    l = (s_lines_t){{0}, 0};
    assert_int_equal (hist_log_read (s_dir, hist_dir_find (&d, "app-5"),
                                     s_collect_len, &l, &rd, &err),
                      0);
    assert_string_equal (l.text, "1|1|"); /* f, g: neither the first */
    assert_int_equal (rd.long_lines, 2);
    assert_true (rd.cut);
    hist_dir_release (&d);
    free (text);
}

/* A summary is reused only while its files are unchanged. */
static void
test_index_invalidation (void **state)
{
    (void) state;
    s_log ("app-a", "x", 1000, "FINISHED", 1);
    s_log ("app-b", "y", 2000, NULL, 1);
    hist_dir_t d;
    hearth_error_t err;
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    hist_index_t *idx = hist_index_load (s_dir);
    assert_int_equal (hist_index_loaded (idx), 0);
    for (size_t i = 0; i < d.n; i++) {
        assert_null (hist_index_get (idx, &d.logs[i]));
        hist_app_t *a = hist_list_read_app (s_dir, &d.logs[i], NULL, &err);
        assert_non_null (a);
        assert_int_equal (hist_index_put (idx, &d.logs[i], a), 0);
    }
    assert_int_equal (hist_index_save (idx, &d, &err), 0);
    hist_index_destroy (&idx);
    hist_dir_release (&d);

    /* reloaded: both found; then app-b grows and app-a is touched */
    idx = hist_index_load (s_dir);
    assert_int_equal (hist_index_loaded (idx), 2);
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    const hist_app_t *a = hist_index_get (idx, hist_dir_find (&d, "app-a"));
    assert_non_null (a);
    assert_string_equal (a->state, "FINISHED");
    assert_non_null (hist_index_get (idx, hist_dir_find (&d, "app-b")));
    hist_dir_release (&d);
    char path[512];
    snprintf (path, sizeof path, "%s/app-b.events", s_dir);
    FILE *f = fopen (path, "a");
    fputs ("{\"event\":\"app_end\",\"time_ms\":3000,\"state\":\"KILLED\"}\n",
           f);
    fclose (f);
    snprintf (path, sizeof path, "%s/app-a.events", s_dir);
    struct timespec t[2] = {{1, 0}, {1, 0}};
    assert_int_equal (utimensat (AT_FDCWD, path, t, 0), 0);
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    assert_null (hist_index_get (idx, hist_dir_find (&d, "app-a")));
    assert_null (hist_index_get (idx, hist_dir_find (&d, "app-b")));
    hist_dir_release (&d);
    /* a rolled file added: changed too */
    hist_index_destroy (&idx);
    idx = hist_index_load (s_dir);
    s_write ("app-a.events.1", "");
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    assert_null (hist_index_get (idx, hist_dir_find (&d, "app-a")));
    hist_dir_release (&d);
    hist_index_destroy (&idx);
}

/* A damaged index file is not trusted; one that cannot be written is
   an error the caller may ignore (the listing goes on in memory). */
static void
test_index_file (void **state)
{
    (void) state;
    char idir[512], path[600];
    snprintf (idir, sizeof idir, "%s/%s", s_dir, HIST_INDEX_DIR);
    mkdir (idir, 0755);
    snprintf (path, sizeof path, "%s/%s", idir, HIST_INDEX_FILE);
    FILE *f = fopen (path, "w");
    fputs ("{\"hearth_history_index\":2}\n{\"id\":\"app-a\",\"files\":[[\"app-"
           "a.events\",1,2,3]],\"app\":{\"id\":\"app-a\"}}\nnot json\n",
           f);
    fclose (f);
    hist_index_t *idx = hist_index_load (s_dir);
    assert_int_equal (hist_index_loaded (idx), 0); /* app lacks its numbers */
    hist_index_destroy (&idx);
    /* the index's directory is a file: not writable */
    hearth_rm_tree (idir);
    s_write (HIST_INDEX_DIR, "in the way\n");
    s_log ("app-c", "z", 1000, "FINISHED", 1);
    hist_dir_t d;
    hearth_error_t err;
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    idx = hist_index_load (s_dir);
    hist_app_t *a = hist_list_read_app (s_dir, &d.logs[0], NULL, &err);
    assert_int_equal (hist_index_put (idx, &d.logs[0], a), 0);
    assert_int_equal (hist_index_save (idx, &d, &err), -1);
    assert_contains (err.text, HIST_INDEX_DIR);
    hist_index_destroy (&idx);
    hist_dir_release (&d);
    /* and the listing still works, exit 0 */
    char *out = NULL;
    size_t len = 0;
    FILE *o = open_memstream (&out, &len);
    hist_list_opts_t opts = {.dir = s_dir, .since_ms = -1, .stale_ms = 3600000};
    assert_int_equal (hist_list (&opts, o, stderr), 0);
    fclose (o);
    assert_contains (out, "app-c");
    free (out);
}

/* The listing's text for opts into *out (a new string: the caller's
   variable is the stream's, so no pointer to a local escapes, which
   gcc 12 -O2's -Wdangling-pointer would otherwise flag). */
static void
s_listing (hist_list_opts_t *opts, int *status, char **out)
{
    size_t len = 0;
    *out = NULL;
    FILE *o = open_memstream (out, &len);
    opts->dir = s_dir;
    opts->stale_ms = 3600000;
    *status = hist_list (opts, o, stderr);
    fclose (o);
}

static void
test_filters_and_order (void **state)
{
    (void) state;
    struct timeval tv;
    gettimeofday (&tv, NULL);
    int64_t now = (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
    s_log ("app-old", "etl-old", now - 3 * 86400000LL, "FAILED", 1);
    s_log ("app-new", "etl-new", now - 3600000, "FINISHED", 1);
    s_log ("app-mid", "report", now - 86400000LL - 3600000, "FAILED", 1);
    /* A driver's log starts after its process does: a start before this
       process's own would be a reused pid's (FAILED), so the log says now
       to the millisecond; "now - 1000" in whole seconds failed whenever
       the test ran within half a second of its process's start. */
    s_log ("app-run", "etl-live", now, NULL, (int64_t) getpid ());
    int status;
    hist_list_opts_t o = {.since_ms = -1};
    char *out;
    s_listing (&o, &status, &out);
    assert_int_equal (status, 0);
    /* newest first */
    char *run = strstr (out, "app-run"), *nw = strstr (out, "app-new");
    char *mid = strstr (out, "app-mid"), *old = strstr (out, "app-old");
    assert_true (run && nw && mid && old && run < nw && nw < mid && mid < old);
    assert_contains (run, "RUNNING"); /* this test's own pid: alive */
    free (out);
    const char *failed[] = {"failed"};
    o = (hist_list_opts_t){
        .since_ms = now - 2 * 86400000LL, .states = failed, .nstates = 1};
    s_listing (&o, &status, &out);
    assert_non_null (strstr (out, "app-mid"));
    assert_null (strstr (out, "app-old")); /* before --since */
    assert_null (strstr (out, "app-new")); /* not FAILED */
    free (out);
    o = (hist_list_opts_t){.since_ms = -1, .name_glob = "etl-*"};
    s_listing (&o, &status, &out);
    assert_null (strstr (out, "app-mid"));
    assert_non_null (strstr (out, "app-old"));
    free (out);
    o = (hist_list_opts_t){.since_ms = -1, .json = true};
    s_listing (&o, &status, &out);
    cJSON *doc = cJSON_Parse (out);
    assert_non_null (doc);
    assert_int_equal (cJSON_GetArraySize (cJSON_GetObjectItemCaseSensitive (
                          doc, "applications")),
                      4);
    cJSON_Delete (doc);
    free (out);
    /* a file in DIR that is not a log: said, exit 1, the others listed */
    s_write ("junk.events", "hello\n");
    o = (hist_list_opts_t){.since_ms = -1};
    s_listing (&o, &status, &out);
    assert_int_equal (status, 1);
    assert_non_null (strstr (out, "app-new"));
    free (out);
}

static void
test_since (void **state)
{
    (void) state;
    int64_t ms;
    hearth_error_t err;
    int64_t now = 1800000000000LL;
    assert_int_equal (hist_parse_since ("24h", now, &ms, &err), 0);
    assert_int_equal (ms, now - 86400000LL);
    assert_int_equal (hist_parse_since ("7d", now, &ms, &err), 0);
    assert_int_equal (ms, now - 7 * 86400000LL);
    assert_int_equal (hist_parse_since ("90m", now, &ms, &err), 0);
    assert_int_equal (ms, now - 90 * 60000LL);
    assert_int_equal (hist_parse_since ("2w", now, &ms, &err), 0);
    assert_int_equal (ms, now - 14 * 86400000LL);
    assert_int_equal (hist_parse_since ("2026-12-01", now, &ms, &err), 0);
    assert_int_equal (ms, 1796083200000LL);
    assert_int_equal (hist_parse_since ("2026-12-01T09:30", now, &ms, &err), 0);
    assert_int_equal (ms, 1796083200000LL + 9 * 3600000LL + 30 * 60000LL);
    assert_int_equal (hist_parse_since ("2026-12-01 09:30:05Z", now, &ms, &err),
                      0);
    assert_int_equal (ms,
                      1796083200000LL + 9 * 3600000LL + 30 * 60000LL + 5000);
    const char *bad[] = {"",
                         "h",
                         "24",
                         "24x",
                         "-3h",
                         "2026-13-01",
                         "yesterday",
                         "2026-12-01T09:30Q",
                         "99999999999999999999d"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal (hist_parse_since (bad[i], now, &ms, &err), -1);
        assert_contains (err.text, "--since");
    }
}

/* A resumed driver's log (app_resumed): "(resumed)" beside its state in
   the listing, the STATE column as wide as it needs; the same when the
   index serves the summaries. */
static void
test_resumed_listing (void **state)
{
    (void) state;
    s_log ("app-plain", "etl", 1796700000000LL, "FINISHED", 1);
    s_write ("app-res.events",
             "{\"event\":\"log_start\",\"time_ms\":1796700060000,"
             "\"format\":2,\"app_id\":\"app-res\",\"name\":\"etl\","
             "\"user\":\"u\"}\n"
             "{\"event\":\"app_resumed\",\"time_ms\":1796700060001,"
             "\"app\":\"app-res\",\"outputs\":7}\n"
             "{\"event\":\"app_end\",\"time_ms\":1796700061000,\"state\":"
             "\"FINISHED\",\"reason\":\"r\"}\n");
    static const char want[] =
        "ID        NAME USER STATE              START                "
        "DURATION CORES   TASKS FAILED REASON\n"
        "app-res   etl  u    FINISHED (resumed) 2026-12-08T03:21:00Z 1.0s    "
        "     0       0      0 r\n"
        "app-plain etl  u    FINISHED           2026-12-08T03:20:00Z 5.0s    "
        "     0       0      0 r\n";
    for (int pass = 0; pass < 2; pass++) { /* read, then from the index */
        hist_list_opts_t o = {.since_ms = -1};
        int status;
        char *out;
        s_listing (&o, &status, &out);
        assert_int_equal (status, 0);
        assert_string_equal (out, want);
        free (out);
    }
    hist_list_opts_t o = {.since_ms = -1, .json = true};
    int status;
    char *out;
    s_listing (&o, &status, &out);
    cJSON *doc = cJSON_Parse (out);
    const cJSON *apps = cJSON_GetObjectItem (doc, "applications");
    const cJSON *res = cJSON_GetArrayItem (apps, 0),
                *plain = cJSON_GetArrayItem (apps, 1);
    assert_true (cJSON_IsTrue (cJSON_GetObjectItem (res, "resumed")));
    assert_int_equal (cJSON_GetObjectItem (res, "resumed_outputs")->valueint,
                      7);
    assert_true (cJSON_IsFalse (cJSON_GetObjectItem (plain, "resumed")));
    assert_true (cJSON_IsNull (cJSON_GetObjectItem (plain, "resumed_outputs")));
    cJSON_Delete (doc);
    free (out);
}

/* The line of out that begins with id and a space (a new string). */
static char *
s_row (const char *out, const char *id)
{
    size_t n = strlen (id);
    for (const char *p = out; p && *p;
         p = strchr (p, '\n') ? strchr (p, '\n') + 1 : NULL)
        if (strncmp (p, id, n) == 0 && p[n] == ' ')
            return strndup (p, strcspn (p, "\n"));
    fail_msg ("no row %s in %s", id, out);
    return NULL;
}

/* A resumed application's drivers' logs (APP_ID.events, then
   APP_ID.driverN.events): a log without app_end that a later driver's
   follows is FAILED, naming the next driver's log, whatever its pid; a
   log with app_end keeps it; a stem that only begins like the id is
   another application. */
static void
test_driver_logs (void **state)
{
    (void) state;
    static const struct {
        const char *id;      /* a stem */
        unsigned long epoch; /* its driver epoch */
    } epochs[] = {{"app-r", 1},           {"app-r.driver2", 2},
                  {"app-r.driver17", 17}, {"app-r.driver1", 1},
                  {"app-r.driver02", 1},  {"app-r.driver2x", 1},
                  {"app-r.driver", 1}};
    for (size_t i = 0; i < sizeof epochs / sizeof epochs[0]; i++)
        assert_int_equal (hist_driver_epoch (epochs[i].id), epochs[i].epoch);
    int64_t pid = (int64_t) getpid (); /* alive: RUNNING but for the rule */
    struct timeval tv;
    gettimeofday (&tv, NULL);
    int64_t now = (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
    s_log ("app-r", "etl", now, NULL, pid);
    s_log ("app-r.driver2", "etl", now, NULL, pid);
    s_log ("app-r.driver3", "etl", now, "FINISHED", pid);
    s_log ("app-rx", "other", now, NULL, pid);
    s_log ("app-q", "q", now, "FAILED", 1);
    s_log ("app-q.driver2", "q", now, NULL, pid);
    hist_dir_t d;
    hearth_error_t err;
    assert_int_equal (hist_dir_scan (s_dir, &d, &err), 0);
    assert_string_equal (hist_dir_next_driver (&d, "app-r"), "app-r.driver2");
    assert_string_equal (hist_dir_next_driver (&d, "app-r.driver2"),
                         "app-r.driver3");
    assert_null (hist_dir_next_driver (&d, "app-r.driver3"));
    assert_null (hist_dir_next_driver (&d, "app-rx"));
    assert_string_equal (hist_dir_prev_driver (&d, "app-r.driver3"),
                         "app-r.driver2");
    assert_string_equal (hist_dir_prev_driver (&d, "app-r.driver2"), "app-r");
    assert_null (hist_dir_prev_driver (&d, "app-r"));
    hist_dir_release (&d);
    hist_list_opts_t o = {.since_ms = -1};
    int status;
    char *out, *row;
    s_listing (&o, &status, &out);
    assert_int_equal (status, 0);
    row = s_row (out, "app-r");
    assert_contains (row, " FAILED ");
    assert_contains (row, "its driver was lost: driver 2 resumed the "
                          "application (its log: app-r.driver2)");
    free (row);
    row = s_row (out, "app-r.driver2");
    assert_contains (row, "driver 3 resumed the application (its log: "
                          "app-r.driver3)");
    free (row);
    row = s_row (out, "app-r.driver3");
    assert_contains (row, " FINISHED ");
    free (row);
    row = s_row (out, "app-rx");
    assert_contains (row, " RUNNING ");
    free (row);
    row = s_row (out, "app-q"); /* its app_end's */
    assert_contains (row, " FAILED ");
    assert_contains (row, " r");
    assert_null (strstr (row, "resumed"));
    free (row);
    row = s_row (out, "app-q.driver2");
    assert_contains (row, " RUNNING ");
    free (row);
    free (out);
    /* one application's summary: the same state, the other logs named */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream (&text, &len);
    assert_int_equal (
        hist_appview (s_dir, "app-r", false, 3, 3600000, f, stderr), 0);
    fclose (f);
    assert_contains (text,
                     "  state    FAILED: its driver was lost: driver 2 "
                     "resumed the application (its log: app-r.driver2)\n");
    free (text);
    f = open_memstream (&text, &len);
    assert_int_equal (
        hist_appview (s_dir, "app-r.driver3", true, 3, 3600000, f, stderr), 0);
    fclose (f);
    cJSON *doc = cJSON_Parse (text);
    assert_int_equal (cJSON_GetObjectItem (doc, "driver_epoch")->valueint, 3);
    assert_string_equal (cJSON_GetObjectItem (doc, "earlier_log")->valuestring,
                         "app-r.driver2");
    assert_true (cJSON_IsNull (cJSON_GetObjectItem (doc, "later_log")));
    cJSON_Delete (doc);
    free (text);
}

static void
test_live (void **state)
{
    (void) state;
    hist_here_t h;
    hist_here_init (&h, 3600000);
    hist_app_t *a = hist_app_new ("x");
    char reason[256];
    a->start_ms = h.now_ms - 1000;
    a->pid = getpid ();
    /* no host (older log), our own pid: running */
    assert_string_equal (
        hist_shown_state (a, h.now_ms, &h, reason, sizeof reason), "RUNNING");
    /* this host, a pid that does not exist: failed, saying why */
    a->host = strdup (h.host);
    a->pid = 2147483600;
    assert_string_equal (
        hist_shown_state (a, h.now_ms, &h, reason, sizeof reason), "FAILED");
    assert_contains (reason, "without app_end");
    assert_contains (reason, "2147483600");
    /* our pid, but a log older than the process: a reused pid */
    a->pid = getpid ();
    a->start_ms = 1000;
    assert_string_equal (
        hist_shown_state (a, h.now_ms, &h, reason, sizeof reason), "FAILED");
    /* elsewhere: the log's age decides */
    free (a->host);
    a->host = strdup ("some-other-host.example");
    assert_string_equal (
        hist_shown_state (a, h.now_ms - 60000, &h, reason, sizeof reason),
        "RUNNING");
    assert_string_equal (
        hist_shown_state (a, h.now_ms - 7200000, &h, reason, sizeof reason),
        "FAILED");
    assert_contains (reason, "some-other-host.example");
    /* an app_end: its state, whatever the pid */
    a->state = strdup ("KILLED");
    a->reason = strdup ("by alice");
    assert_string_equal (hist_shown_state (a, 0, &h, reason, sizeof reason),
                         "KILLED");
    assert_string_equal (reason, "by alice");
    hist_app_destroy (&a);
}

int
main (void)
{
    alarm (120);
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_names),
        cmocka_unit_test_setup_teardown (test_rolled_and_cut, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_long_lines, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_fifos_do_not_block, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_index_invalidation, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_index_file, s_setup, s_teardown),
        cmocka_unit_test_setup_teardown (test_filters_and_order, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_resumed_listing, s_setup,
                                         s_teardown),
        cmocka_unit_test_setup_teardown (test_driver_logs, s_setup, s_teardown),
        cmocka_unit_test (test_since),
        cmocka_unit_test (test_live),
    };
    return cmocka_run_group_tests_name ("hist_dir", tests, NULL, NULL);
}
