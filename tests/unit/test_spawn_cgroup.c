/*  test_spawn_cgroup.c - children created in a cgroup v2 group
    (libcore/spawn.h's cgroup_fd, clone3 with CLONE_INTO_CGROUP) on the
    machine's real cgroup2 hierarchy: the child is in the group from its
    first instruction without a join, and when clone3 cannot use the fd
    the spawn falls back to fork and the join.  Needs root and a
    writable cgroup2 mount (a cgroup v2 host, or v1's "unified" one);
    else each test says SKIPPED and passes.
*/
#include "config.h"

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "libcore/spawn.h"
#include "tests/lib/scratchcg.h"
#include "tests/unit/testutil.h"

/* Make the group NAME-PID, or say why not (the test then passes). */
static bool
s_group_new (scratchcg_t *g, const char *name)
{
    char why[256];
    if (scratchcg_make (g, name, why, sizeof why) == 0)
        return true;
    print_message ("SKIPPED: %s\n", why);
    return false;
}

/* Spawn cat /proc/self/cgroup with opts' group fields; its v2 line. */
static void
s_cat_cgroup (hearth_spawn_opts_t *o, char *line, size_t size)
{
    const char *argv[] = {"cat", "/proc/self/cgroup", NULL};
    int fds[2];
    assert_int_equal (pipe2 (fds, O_CLOEXEC), 0);
    o->argv = argv;
    o->stdin_fd = HEARTH_SPAWN_DEVNULL;
    o->stdout_fd = fds[1];
    o->stderr_fd = HEARTH_SPAWN_INHERIT;
    hearth_error_t err;
    pid_t pid = hearth_spawn (o, &err);
    if (pid < 0)
        fail_msg ("spawn failed: %s", err.text);
    close (fds[1]);
    FILE *f = fdopen (fds[0], "r");
    assert_non_null (f);
    line[0] = '\0';
    char buf[4096];
    while (fgets (buf, sizeof buf, f))
        if (strncmp (buf, "0::", 3) == 0)
            snprintf (line, size, "%s", buf);
    fclose (f);
    int status;
    assert_int_equal (waitpid (pid, &status, 0), pid);
    assert_true (WIFEXITED (status) && WEXITSTATUS (status) == 0);
}

/* Created in the group: no join fd given, and there it is. */
static void
test_created_in_group (void **state)
{
    (void) state;
    scratchcg_t g;
    if (!s_group_new (&g, "hearth-spawn-into"))
        return;
    hearth_spawn_opts_t o = {.cgroup_fd = &g.dir_fd};
    char line[8500], want[8500];
    s_cat_cgroup (&o, line, sizeof line);
    snprintf (want, sizeof want, "0::%s\n", g.rel);
    assert_string_equal (line, want);
    assert_int_equal (scratchcg_remove (&g), 0);
}

/* A cgroup_fd clone3 refuses (not a cgroup: EBADF from the kernel): the
   spawn forks and the child joins through join_fds instead. */
static void
test_fallback_to_join (void **state)
{
    (void) state;
    scratchcg_t g;
    if (!s_group_new (&g, "hearth-spawn-join"))
        return;
    int not_a_group = open ("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    assert_true (not_a_group >= 0);
    hearth_spawn_opts_t o = {
        .cgroup_fd = &not_a_group, .join_fds = &g.procs_fd, .njoin_fds = 1};
    char line[8500], want[8500];
    s_cat_cgroup (&o, line, sizeof line);
    snprintf (want, sizeof want, "0::%s\n", g.rel);
    assert_string_equal (line, want);
    close (not_a_group);
    assert_int_equal (scratchcg_remove (&g), 0);
}

int
main (void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test (test_created_in_group),
        cmocka_unit_test (test_fallback_to_join),
    };
    return cmocka_run_group_tests (tests, NULL, NULL);
}
