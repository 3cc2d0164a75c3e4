/*  scratchcg.h - a scratch group in the machine's cgroup v2 hierarchy,
    for the tests and benchmarks of children created in a group
    (tests/unit/test_spawn_cgroup.c, tests/bench/bench_cgspawn.c).

    The group is made beside this process's own (a sibling: a process
    may not sit in a group whose children have controllers), so it works
    on a cgroup v2 host and in the "unified" hierarchy of a v1 host
    alike.  Needs root.  Header-only.
*/
#ifndef HEARTH_TESTS_SCRATCHCG_H
#define HEARTH_TESTS_SCRATCHCG_H

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    char rel[8400];  /* its path in the hierarchy: "/a/b/name-PID" */
    char dir[12600]; /* its directory */
    int dir_fd;      /* that directory, open (close-on-exec) */
    int procs_fd;    /* its cgroup.procs, open for writing */
} scratchcg_t;

/* A line of path (an open file of lines) that starts with prefix, into
   buf without its newline.  0 or -1. */
static inline int
scratchcg_line (const char *path, const char *prefix, char *buf, size_t size)
{
    FILE *f = fopen (path, "re");
    char line[4096];
    int rc = -1;
    while (f && rc < 0 && fgets (line, sizeof line, f)) {
        line[strcspn (line, "\n")] = '\0';
        const char *at = prefix[0] == ' ' ? strstr (line, prefix) : line;
        if (at && strncmp (at, prefix, strlen (prefix)) == 0) {
            snprintf (buf, size, "%s", line);
            rc = 0;
        }
    }
    if (f)
        fclose (f);
    return rc;
}

/* Make the group NAME-PID, or say why not in why (0 or -1). */
static inline int
scratchcg_make (scratchcg_t *g, const char *name, char *why, size_t size)
{
    char info[4096], mnt[4096], own[4096];
    if (geteuid () != 0)
        return snprintf (why, size, "not root"), -1;
    if (scratchcg_line ("/proc/self/mountinfo", " - cgroup2 ", info,
                        sizeof info)
            < 0
        || sscanf (info, "%*s %*s %*s %*s %4095s", mnt) != 1
        || scratchcg_line ("/proc/self/cgroup", "0::", own, sizeof own) < 0)
        return snprintf (why, size, "no cgroup2 hierarchy is mounted"), -1;
    char *slash = strrchr (own + 3, '/');
    if (slash)
        *slash = '\0'; /* the parent of our own group */
    snprintf (g->rel, sizeof g->rel, "%s/%s-%d", own + 3, name,
              (int) getpid ());
    snprintf (g->dir, sizeof g->dir, "%s%s", mnt, g->rel);
    if (mkdir (g->dir, 0755) < 0)
        return snprintf (why, size, "cannot make %.150s: %s", g->dir,
                         strerror (errno)),
               -1;
    char procs[12700];
    snprintf (procs, sizeof procs, "%s/cgroup.procs", g->dir);
    g->dir_fd = open (g->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    g->procs_fd = open (procs, O_WRONLY | O_CLOEXEC);
    if (g->dir_fd < 0 || g->procs_fd < 0)
        return snprintf (why, size, "cannot open %.150s: %s", g->dir,
                         strerror (errno)),
               -1;
    return 0;
}

/* Close and remove it (its processes gone).  0 or -1 with errno. */
static inline int
scratchcg_remove (scratchcg_t *g)
{
    close (g->dir_fd);
    close (g->procs_fd);
    return rmdir (g->dir);
}

#endif
