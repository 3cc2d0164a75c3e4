/*  test_journal_files.c - the master's journal files (journal.c) in a
    scratch directory: the lock, a torn tail cut and kept aside,
    compaction, a crash between snapshot and journal, and a write that
    fails (a full disk, as RLIMIT_FSIZE makes one): the record cut short is
    cut off, nothing is appended after a missing record, and the next
    snapshot makes the journal whole. */
#include "config.h"

#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/log.h"
#include "master/journal.h"
#include "master/jstate.h"
#include "tests/unit/journaltest.h"
#include "tests/unit/testutil.h"

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
    assert_int_equal (journal_snapshot_size (j), 0);
    assert_int_equal (journal_compact (j, s_dump, records, &err), 0);
    assert_int_equal (journal_gen (j), 1);
    assert_true (s_exists ("snapshot"));
    /* its size, the bar a journal must pass to be worth compacting */
    snprintf (path, sizeof path, "%s/snapshot", s_dir);
    struct stat snap;
    assert_int_equal (stat (path, &snap), 0);
    assert_int_equal (journal_snapshot_size (j), (size_t) snap.st_size);
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

/* The state in DIR/journal.GEN's bytes alone, and what the load found. */
static jstate_t *
s_load_journal (int gen, jload_t *rep)
{
    char path[256];
    snprintf (path, sizeof path, "%s/journal.%d", s_dir, gen);
    FILE *f = fopen (path, "r");
    assert_non_null (f);
    static char buf[65536];
    size_t n = fread (buf, 1, sizeof buf, f);
    fclose (f);
    jstate_t *st = jstate_new ();
    jstate_load (st, buf, n, rep);
    return st;
}

static off_t
s_journal_bytes (int gen)
{
    char path[256];
    struct stat sb;
    snprintf (path, sizeof path, "%s/journal.%d", s_dir, gen);
    assert_int_equal (stat (path, &sb), 0);
    return sb.st_size;
}

static int
s_try_append (journal_t *j, const char *json)
{
    cJSON *r = s_rec (json);
    int rc = journal_append (j, r, true);
    cJSON_Delete (r);
    return rc;
}

/* A full disk in the middle of a record (issue 14.2): the write is cut
   short, then fails.  The journal cuts the torn bytes off, refuses
   appends while it is behind (a record after a missing one would lie),
   and a snapshot once the disk takes one makes it whole: a replay has
   every record, none torn. */
static void
test_write_fails (void **state)
{
    (void) state;
    hearth_error_t err;
    jstate_t *st = NULL;
    jload_t rep;
    snprintf (s_dir, sizeof s_dir, "test_journal.XXXXXX");
    hearth_test_tmpdir (s_dir);
    strcat (s_dir, "/j");
    journal_t *j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    jstate_destroy (&st);
    s_append (j, "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}", false);
    s_append (j, "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\"}", true);
    off_t good = s_journal_bytes (0);
    assert_false (journal_behind (j));

    /* the disk fills 20 bytes into the next record */
    struct rlimit old, full;
    assert_int_equal (getrlimit (RLIMIT_FSIZE, &old), 0);
    full = old;
    full.rlim_cur = (rlim_t) good + 20;
    signal (SIGXFSZ, SIG_IGN);
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &full), 0);
    const char *a2 = "{\"t\":\"app\",\"id\":\"a2\",\"state\":\"FINISHED\","
                     "\"name\":\"cut short by a full disk\"}";
    assert_int_equal (s_try_append (j, a2), -1);
    assert_int_equal (s_journal_bytes (0), good); /* cut back */
    /* space comes back: nothing is appended after the missing record */
    assert_int_equal (setrlimit (RLIMIT_FSIZE, &old), 0);
    const char *a3 = "{\"t\":\"app\",\"id\":\"a3\",\"state\":\"FAILED\"}";
    assert_int_equal (s_try_append (j, a3), -1);
    assert_true (journal_behind (j));
    st = s_load_journal (0, &rep);
    assert_int_equal (rep.status, JREC_OK);
    assert_int_equal (rep.bad_bytes, 0);
    assert_int_equal (rep.records, 3); /* the header, w1, a1 */
    assert_null (cJSON_GetObjectItem (jstate_apps (st), "a3"));
    jstate_destroy (&st);

    /* a snapshot is tried at most once a second while behind */
    assert_true (journal_repair_due (j, 5000));
    assert_false (journal_repair_due (j, 5500));
    assert_true (journal_repair_due (j, 6000));
    const char *whole[] = {
        "{\"t\":\"worker\",\"id\":\"w1\",\"state\":\"ALIVE\"}",
        "{\"t\":\"app\",\"id\":\"a1\",\"state\":\"FINISHED\"}", a2, a3, NULL};
    assert_int_equal (journal_compact (j, s_dump, whole, &err), 0);
    assert_false (journal_behind (j));
    assert_false (journal_repair_due (j, 9000));
    s_append (j, "{\"t\":\"app\",\"id\":\"a4\",\"state\":\"RUNNING\"}", true);
    journal_destroy (&j);
    j = journal_open (s_dir, &st, &err);
    assert_non_null (j);
    char keys[256];
    assert_string_equal (s_keys (jstate_apps (st), keys, sizeof keys),
                         "a1 a2 a3 a4");
    assert_non_null (cJSON_GetObjectItem (jstate_workers (st), "w1"));
    assert_false (s_exists ("journal.1.bad"));
    jstate_destroy (&st);
    journal_destroy (&j);
    signal (SIGXFSZ, SIG_DFL);
    s_dir[strlen (s_dir) - 2] = '\0'; /* the scratch directory */
    assert_int_equal (nftw (s_dir, s_rm, 8, FTW_DEPTH | FTW_PHYS), 0);
}

int
main (void)
{
    alarm (60); /* a hung test fails instead of stalling make check */
    hearth_test_clear_env ();
    hearth_log_open ("test_journal_files", "error", NULL, NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_files),
        cmocka_unit_test (test_write_fails),
    };
    int rc = cmocka_run_group_tests (tests, NULL, NULL);
    hearth_log_close ();
    return rc;
}
