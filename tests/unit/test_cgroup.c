/*  test_cgroup.c - unit tests of the worker's control groups
    (worker/cgroup.c and its two backends): the files each backend writes
    and reads, in a fake cgroupfs tree (a directory this test builds);
    the refusal when a controller is missing; groups left by an earlier
    worker removed; and, where this machine has a cgroup v1 memory
    hierarchy and the test runs as root, real enforcement: a child joins
    its group before it execs, and a child that allocates past its limit
    is held under OOM, seen, and killed with its group.  The test says
    which of these ran (v2 only ever against the fake tree here unless
    the machine's cgroup2 mount offers memory and cpu).
*/
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/spawn.h"
#include "tests/unit/testutil.h"
#include "worker/cgroup.h"

static const int64_t MiB = 1024 * 1024;

/* A fresh directory under /tmp. */
static void
s_tmpdir (char *buf, size_t size)
{
    snprintf (buf, size, "/tmp/test_cgroup.XXXXXX");
    assert_non_null (mkdtemp (buf));
}

static void
s_put (const char *dir, const char *file, const char *text)
{
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen (path, "w");
    assert_non_null (f);
    fputs (text, f);
    fclose (f);
}

/* DIR/FILE's text (static buffer), or "(none)". */
static const char *
s_get (const char *dir, const char *file)
{
    static char buf[4096];
    char path[4200];
    snprintf (path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen (path, "r");
    if (!f)
        return "(none)";
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose (f);
    return buf;
}

static bool
s_is_dir (const char *path)
{
    struct stat st;
    return stat (path, &st) == 0 && S_ISDIR (st.st_mode);
}

static void
s_rm_rf (const char *dir)
{
    char cmd[4300];
    snprintf (cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal (system (cmd), 0);
}

/* --- v2 against a fake tree ------------------------------------------- */

static void
test_v2_fake (void **state)
{
    (void) state;
    char root[64], dir[4200], g_dir[4200];
    s_tmpdir (root, sizeof root);
    s_put (root, "cgroup.controllers", "cpuset cpu io memory hugetlb pids\n");
    cgroups_config_t c = {.version = 2,
                          .fs_root = root,
                          .plain_files = true,
                          .worker_id = "w1.0000abcd"};
    hearth_error_t err;
    cgroups_t *t = cgroups_new (&c, &err);
    assert_non_null (t);
    print_message ("v2: against a fake cgroupfs tree in %s\n", root);
    assert_int_equal (cgroups_version (t), 2);
    snprintf (dir, sizeof dir, "%s/hearth/w1.0000abcd", root);
    assert_string_equal (cgroups_path (t), dir);
    assert_string_equal (s_get (root, "cgroup.subtree_control"),
                         "+memory +cpu +pids");
    snprintf (dir, sizeof dir, "%s/hearth", root);
    assert_string_equal (s_get (dir, "cgroup.subtree_control"),
                         "+memory +cpu +pids");
    assert_string_equal (s_get (cgroups_path (t), "cgroup.subtree_control"),
                         "+memory +cpu +pids");

    cgroup_limits_t l = {
        .memory_bytes = 1088 * MiB, .cores = 2, .pids_max = 4096};
    cgroup_t *g = cgroup_new (t, "app-1-exec-3", &l, &err);
    assert_non_null (g);
    snprintf (g_dir, sizeof g_dir, "%s/app-1-exec-3", cgroups_path (t));
    assert_string_equal (s_get (g_dir, "memory.max"), "1140850688");
    assert_string_equal (s_get (g_dir, "memory.swap.max"), "0");
    assert_string_equal (s_get (g_dir, "memory.oom.group"), "1");
    assert_string_equal (s_get (g_dir, "cpu.max"), "200000 100000");
    assert_string_equal (s_get (g_dir, "pids.max"), "4096");
    assert_int_equal (cgroups_count (t), 1);
    /* a second group of one name is refused */
    assert_null (cgroup_new (t, "app-1-exec-3", &l, &err));
    assert_contains (err.text, "File exists");
    assert_null (cgroup_new (t, "a/b", &l, &err));
    assert_contains (err.text, "bad cgroup name");

    /* what the child writes before it execs */
    int fds[CGROUP_MAX_DIRS];
    assert_int_equal (cgroup_join_fds (g, fds, CGROUP_MAX_DIRS, &err), 1);
    assert_int_equal (write (fds[0], "0", 1), 1);
    close (fds[0]);
    assert_string_equal (s_get (g_dir, "cgroup.procs"), "0");
    /* a fake tree is no cgroupfs: no creation in the group, the join */
    assert_int_equal (cgroup_dir_fd (g), -1);

    /* counters as the kernel words them */
    cgroup_stats_t st;
    s_put (g_dir, "memory.peak", "1140850688\n");
    s_put (g_dir, "memory.events",
           "low 0\nhigh 0\nmax 12\noom 1\noom_kill 0\noom_group_kill 0\n");
    s_put (g_dir, "cpu.stat", "usage_usec 5000\nuser_usec 4000\n");
    assert_false (cgroup_oom (g));
    s_put (g_dir, "memory.events",
           "low 0\nhigh 0\nmax 12\noom 1\noom_kill 2\noom_group_kill 1\n");
    assert_true (cgroup_oom (g));
    cgroup_stats (g, &st);
    assert_int_equal (st.memory_limit_bytes, 1088 * MiB);
    assert_int_equal (st.peak_bytes, 1088 * MiB);
    assert_true (st.oom);
    assert_int_equal (st.cpu_usage_ns, 5000000);
    assert_int_equal (cgroup_kill (g), 1);
    assert_string_equal (s_get (g_dir, "cgroup.kill"), "1");
    s_put (g_dir, "cgroup.procs", "");
    assert_true (cgroup_empty (g));
    assert_int_equal (cgroup_destroy (&g), 0);
    assert_null (g);
    assert_false (s_is_dir (g_dir));

    /* an earlier worker's group, found and removed */
    snprintf (dir, sizeof dir, "%s/app-1-exec-9", cgroups_path (t));
    assert_int_equal (mkdir (dir, 0755), 0);
    s_put (dir, "cgroup.procs", "");
    assert_int_equal (cgroups_clean_stale (t), 1);
    assert_false (s_is_dir (dir));
    assert_int_equal (cgroups_count (t), 0);
    cgroups_destroy (&t);
    assert_null (t);
    snprintf (dir, sizeof dir, "%s/hearth", root);
    assert_false (s_is_dir (dir));
    s_rm_rf (root);
}

static void
test_v2_missing_controller (void **state)
{
    (void) state;
    char root[64];
    s_tmpdir (root, sizeof root);
    s_put (root, "cgroup.controllers", "cpu io hugetlb\n");
    cgroups_config_t c = {
        .version = 2, .fs_root = root, .plain_files = true, .worker_id = "w1"};
    hearth_error_t err;
    assert_null (cgroups_new (&c, &err));
    assert_contains (err.text, "offers no memory controller");
    assert_contains (err.text, "cpu io hugetlb");
    /* auto falls to v1, which has nothing here either, and says so */
    c.version = 0;
    assert_null (cgroups_new (&c, &err));
    assert_contains (err.text, "no cgroup v1 memory hierarchy");
    s_rm_rf (root);
}

/* --- v1 against a fake tree ------------------------------------------- */

static void
s_v1_tree (char *root, size_t size, bool with_cpu)
{
    char dir[200];
    s_tmpdir (root, size);
    const char *ctls[] = {"memory", "cpu", "pids", NULL};
    for (int i = 0; ctls[i]; i++) {
        if (!with_cpu && strcmp (ctls[i], "cpu") == 0)
            continue;
        snprintf (dir, sizeof dir, "%s/%s", root, ctls[i]);
        assert_int_equal (mkdir (dir, 0755), 0);
    }
}

static void
test_v1_fake (void **state)
{
    (void) state;
    char root[64], g_dir[4200], pids_dir[4200];
    s_v1_tree (root, sizeof root, true);
    cgroups_config_t c = {
        .version = 1, .fs_root = root, .plain_files = true, .worker_id = "w2"};
    hearth_error_t err;
    cgroups_t *t = cgroups_new (&c, &err);
    assert_non_null (t);
    print_message ("v1: against a fake cgroupfs tree in %s\n", root);
    assert_int_equal (cgroups_version (t), 1);
    cgroup_limits_t l = {
        .memory_bytes = 576 * MiB, .cores = 1, .pids_max = 100};
    cgroup_t *g = cgroup_new (t, "driver-1", &l, &err);
    assert_non_null (g);
    snprintf (g_dir, sizeof g_dir, "%s/memory/hearth/w2/driver-1", root);
    assert_string_equal (s_get (g_dir, "memory.limit_in_bytes"), "603979776");
    assert_string_equal (s_get (g_dir, "memory.memsw.limit_in_bytes"),
                         "603979776");
    /* the kernel's killer off: the worker kills the whole group */
    assert_string_equal (s_get (g_dir, "memory.oom_control"), "1");
    snprintf (pids_dir, sizeof pids_dir, "%s/cpu/hearth/w2/driver-1", root);
    assert_string_equal (s_get (pids_dir, "cpu.cfs_period_us"), "100000");
    assert_string_equal (s_get (pids_dir, "cpu.cfs_quota_us"), "100000");
    snprintf (pids_dir, sizeof pids_dir, "%s/pids/hearth/w2/driver-1", root);
    assert_string_equal (s_get (pids_dir, "pids.max"), "100");
    /* the child moves itself through each group's tasks, not
       cgroup.procs: the one move the kernel makes without waiting for a
       grace period */
    int fds[CGROUP_MAX_DIRS];
    assert_int_equal (cgroup_join_fds (g, fds, CGROUP_MAX_DIRS, &err), 3);
    for (int i = 0; i < 3; i++) {
        assert_int_equal (write (fds[i], "0", 1), 1);
        close (fds[i]);
    }
    const char *ctls[] = {"memory", "cpu", "pids"};
    for (int i = 0; i < 3; i++) {
        char dir[4200];
        snprintf (dir, sizeof dir, "%s/%s/hearth/w2/driver-1", root, ctls[i]);
        assert_string_equal (s_get (dir, "tasks"), "0");
        assert_string_equal (s_get (dir, "cgroup.procs"), "(none)");
    }
    /* v1: a group per hierarchy, which no clone3 can enter at once */
    assert_int_equal (cgroup_dir_fd (g), -1);

    s_put (g_dir, "memory.oom_control",
           "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
    assert_false (cgroup_oom (g));
    s_put (g_dir, "memory.oom_control",
           "oom_kill_disable 1\nunder_oom 1\noom_kill 0\n");
    assert_true (cgroup_oom (g));
    /* once seen, said again after the kill (under_oom is 0 again) */
    s_put (g_dir, "memory.oom_control",
           "oom_kill_disable 1\nunder_oom 0\noom_kill 0\n");
    s_put (g_dir, "memory.max_usage_in_bytes", "603979776\n");
    cgroup_stats_t st;
    cgroup_stats (g, &st);
    assert_true (st.oom);
    assert_int_equal (st.peak_bytes, 576 * MiB);
    assert_int_equal (st.cpu_usage_ns, -1); /* no cpuacct here */

    /* v1 kills what cgroup.procs lists, one by one */
    pid_t pid = fork ();
    if (pid == 0) {
        pause ();
        _exit (0);
    }
    char text[32];
    snprintf (text, sizeof text, "%d\n", (int) pid);
    s_put (pids_dir, "cgroup.procs", text);
    assert_false (cgroup_empty (g));
    assert_true (cgroup_kill (g) >= 1);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    s_put (pids_dir, "cgroup.procs", "");
    assert_int_equal (cgroup_destroy (&g), 0);
    assert_false (s_is_dir (g_dir));
    cgroups_destroy (&t);
    s_rm_rf (root);
}

static void
test_v1_missing_cpu (void **state)
{
    (void) state;
    char root[64];
    s_v1_tree (root, sizeof root, false);
    cgroups_config_t c = {
        .version = 1, .fs_root = root, .plain_files = true, .worker_id = "w3"};
    hearth_error_t err;
    assert_null (cgroups_new (&c, &err));
    assert_contains (err.text, "no cgroup v1 cpu hierarchy");
    s_rm_rf (root);
}

/* --- real v1 ----------------------------------------------------------- */

/* Whether this machine lets the test use real v1 groups; says why not. */
static bool
s_real_v1 (cgroups_t **t, const char *id)
{
    cgroups_config_t c = {.version = 1, .worker_id = id};
    hearth_error_t err;
    if (geteuid () != 0) {
        print_message ("real v1: SKIPPED (not root)\n");
        return false;
    }
    if (!(*t = cgroups_new (&c, &err))) {
        print_message ("real v1: SKIPPED (%s)\n", err.text);
        return false;
    }
    print_message ("real v1: in %s\n", cgroups_path (*t));
    return true;
}

static void
test_v1_real_join (void **state)
{
    (void) state;
    cgroups_t *t = NULL;
    char id[64];
    snprintf (id, sizeof id, "test-cgroup-%d", (int) getpid ());
    if (!s_real_v1 (&t, id))
        return;
    hearth_error_t err;
    cgroup_limits_t l = {.memory_bytes = 64 * MiB, .cores = 1, .pids_max = 16};
    cgroup_t *g = cgroup_new (t, "join", &l, &err);
    assert_non_null (g);
    int fds[CGROUP_MAX_DIRS];
    int n = cgroup_join_fds (g, fds, CGROUP_MAX_DIRS, &err);
    assert_true (n >= 2);
    /* the child is in its group when it starts: it prints its own */
    const char *argv[] = {"cat", "/proc/self/cgroup", NULL};
    int pipefd[2];
    assert_int_equal (pipe (pipefd), 0);
    hearth_spawn_opts_t o = {.argv = argv,
                             .stdin_fd = HEARTH_SPAWN_DEVNULL,
                             .stdout_fd = pipefd[1],
                             .stderr_fd = HEARTH_SPAWN_INHERIT,
                             .join_fds = fds,
                             .njoin_fds = (size_t) n};
    pid_t pid = hearth_spawn (&o, &err);
    assert_true (pid > 0);
    close (pipefd[1]);
    for (int i = 0; i < n; i++)
        close (fds[i]);
    char buf[4096];
    size_t got = 0;
    ssize_t r;
    while ((r = read (pipefd[0], buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t) r;
    buf[got] = '\0';
    close (pipefd[0]);
    waitpid (pid, NULL, 0);
    char want[200];
    snprintf (want, sizeof want, "memory:/");
    assert_contains (buf, want);
    snprintf (want, sizeof want, "/hearth/%s/join\n", id);
    assert_contains (buf, want);
    assert_int_equal (cgroup_destroy (&g), 0);
    assert_int_equal (cgroups_count (t), 0);
    cgroups_destroy (&t);
}

/* In the child: join, then touch memory until the limit holds it. */
static void __attribute__ ((noreturn)) s_hog (const int *fds, int n)
{
    for (int i = 0; i < n; i++)
        if (write (fds[i], "0", 1) != 1)
            _exit (3);
    for (size_t total = 0; total < (size_t) 1 << 30; total += 1 << 20) {
        char *p = malloc (1 << 20);
        if (!p)
            _exit (4);
        memset (p, 1, 1 << 20);
    }
    _exit (5);
}

static void
test_v1_real_oom (void **state)
{
    (void) state;
    cgroups_t *t = NULL;
    char id[64];
    snprintf (id, sizeof id, "test-cgroup-oom-%d", (int) getpid ());
    if (!s_real_v1 (&t, id))
        return;
    hearth_error_t err;
    cgroup_limits_t l = {.memory_bytes = 48 * MiB, .cores = 1, .pids_max = 16};
    cgroup_t *g = cgroup_new (t, "hog", &l, &err);
    assert_non_null (g);
    int fds[CGROUP_MAX_DIRS];
    int n = cgroup_join_fds (g, fds, CGROUP_MAX_DIRS, &err);
    assert_true (n >= 2);
    pid_t pid = fork ();
    if (pid == 0)
        s_hog (fds, n);
    for (int i = 0; i < n; i++)
        close (fds[i]);
    /* held under OOM, not killed by the kernel: seen within 10 s */
    bool oom = false;
    for (int i = 0; i < 1000 && !(oom = cgroup_oom (g)); i++) {
        int status;
        assert_int_equal (waitpid (pid, &status, WNOHANG), 0);
        nanosleep (&(struct timespec){0, 10000000}, NULL);
    }
    assert_true (oom);
    assert_true (cgroup_kill (g) >= 1);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFSIGNALED (status) && WTERMSIG (status) == SIGKILL);
    cgroup_stats_t st;
    cgroup_stats (g, &st);
    assert_true (st.oom);
    assert_int_equal (st.memory_limit_bytes, 48 * MiB);
    print_message ("real v1: limit %lld MiB, peak %lld bytes\n",
                   (long long) (st.memory_limit_bytes / MiB),
                   (long long) st.peak_bytes);
    assert_true (st.peak_bytes > 40 * MiB && st.peak_bytes <= 48 * MiB);
    for (int i = 0; i < 100 && cgroup_destroy (&g) < 0; i++)
        nanosleep (&(struct timespec){0, 10000000}, NULL);
    assert_null (g);
    cgroups_destroy (&t);
}

/* --- the spawn's join and its asynchronous report ---------------------- */

static void
test_spawn_report (void **state)
{
    (void) state;
    hearth_error_t err;
    int fd = -1, status;
    /* a join that fails (a file not open for writing): said at the report */
    int bad = open ("/dev/null", O_RDONLY | O_CLOEXEC);
    const char *argv[] = {"true", NULL};
    hearth_spawn_opts_t o = {.argv = argv,
                             .stdin_fd = HEARTH_SPAWN_DEVNULL,
                             .stdout_fd = HEARTH_SPAWN_DEVNULL,
                             .stderr_fd = HEARTH_SPAWN_DEVNULL,
                             .join_fds = &bad,
                             .njoin_fds = 1,
                             .exec_report_fd = &fd};
    pid_t pid = hearth_spawn (&o, &err);
    assert_true (pid > 0);
    assert_true (fd >= 0);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_int_equal (WEXITSTATUS (status), 127);
    assert_int_equal (hearth_spawn_report (fd, "executor", &err), -1);
    assert_contains (err.text, "cannot put executor into its cgroup");
    close (fd);
    close (bad);
    /* a program that runs: EOF once it has exec'd */
    int ok = open ("/dev/null", O_WRONLY | O_CLOEXEC);
    o.join_fds = &ok;
    pid = hearth_spawn (&o, &err);
    assert_true (pid > 0);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_int_equal (WEXITSTATUS (status), 0);
    assert_int_equal (hearth_spawn_report (fd, "executor", &err), 0);
    close (fd);
    /* a program that is not there */
    const char *missing[] = {"/nonexistent/hearth-executor", NULL};
    o.argv = missing;
    pid = hearth_spawn (&o, &err);
    assert_true (pid > 0);
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_int_equal (hearth_spawn_report (fd, "executor", &err), -1);
    assert_contains (err.text, "cannot run executor: No such file");
    close (fd);
    close (ok);
}

int
main (void)
{
    hearth_test_clear_env ();
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_v2_fake),
        cmocka_unit_test (test_v2_missing_controller),
        cmocka_unit_test (test_v1_fake),
        cmocka_unit_test (test_v1_missing_cpu),
        cmocka_unit_test (test_v1_real_join),
        cmocka_unit_test (test_v1_real_oom),
        cmocka_unit_test (test_spawn_report),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
