/*  peak.c - the executor's peak memory; see peak.h.

    The group is found in /proc/self/cgroup: a cgroup v1 "memory"
    hierarchy's line (its max_usage_in_bytes) or the v2 line "0::" (its
    memory.peak, kernels of 5.19 and later), under the usual mount points.
    Only a group a worker made for us counts (its path has "/hearth/",
    docs/cluster.md "Isolation"): any other group (a login session, a
    container) holds other processes too.
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "executor/peak.h"

/* The first number in file, or -1. */
static int64_t
s_read_number (const char *path)
{
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    long long v = -1;
    if (fscanf (f, "%lld", &v) != 1)
        v = -1;
    fclose (f);
    return v;
}

/* Our worker-made group's peak, or -1. */
static int64_t
s_group_peak (void)
{
    FILE *f = fopen ("/proc/self/cgroup", "r");
    if (!f)
        return -1;
    char line[4096], path[4200];
    int64_t peak = -1;
    while (peak < 0 && fgets (line, sizeof line, f)) {
        line[strcspn (line, "\n")] = '\0';
        char *ctl = strchr (line, ':');
        char *where = ctl ? strchr (ctl + 1, ':') : NULL;
        if (!where || !strstr (where, "/hearth/"))
            continue;
        *where++ = '\0';
        ctl++;
        if (strcmp (ctl, "") == 0) /* v2 */
            snprintf (path, sizeof path, "/sys/fs/cgroup%s/memory.peak", where);
        else if (strstr (ctl, "memory"))
            snprintf (path, sizeof path,
                      "/sys/fs/cgroup/memory%s/memory.max_usage_in_bytes",
                      where);
        else
            continue;
        peak = s_read_number (path);
    }
    fclose (f);
    return peak;
}

int64_t
peak_rss_bytes (void)
{
    int64_t group = s_group_peak ();
    if (group > 0)
        return group;
    struct rusage own, children;
    if (getrusage (RUSAGE_SELF, &own) < 0
        || getrusage (RUSAGE_CHILDREN, &children) < 0)
        return -1;
    long kib =
        own.ru_maxrss > children.ru_maxrss ? own.ru_maxrss : children.ru_maxrss;
    return (int64_t) kib * 1024;
}
