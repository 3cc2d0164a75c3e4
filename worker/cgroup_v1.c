/*  cgroup_v1.c - the cgroup v1 backend: one hierarchy per controller
    (memory and cpu required, cpuacct and pids where mounted), limits
    memory.limit_in_bytes (and memory.memsw.limit_in_bytes, the same
    figure, where swap is accounted: no swap), cpu.cfs_quota_us (cores x
    cpu.cfs_period_us), pids.max.

    v1 has no group-wide OOM kill: its OOM killer picks one process, which
    may be a task's command while the executor lives on and reports a
    plain task failure.  So the group's killer is disabled
    (memory.oom_control = 1): a group at its limit waits under OOM until
    the worker sees it (cgroup_oom, at each tick) and kills it whole, as
    memory.oom.group does on v2.  See cgroup.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "worker/cgroup_impl.h"

/* The controllers without which v1 isolation is refused, and those used
   where mounted. */
static const char *const s_required[] = {"memory", "cpu", NULL};
static const char *const s_optional[] = {"cpuacct", "pids", NULL};
/* The CFS period when the hierarchy does not say (the kernel's default). */
static const int64_t s_default_period_us = 100000;

/* The mount of a controller's hierarchy and the worker's group in it.
   Returns 0, or -1 when it is not mounted. */
static int
s_locate (const cgroups_config_t *c, const char *ctl, char *mount, size_t msize,
          char *own, size_t osize)
{
    if (c->fs_root) {
        struct stat st;
        snprintf (mount, msize, "%s/%s", c->fs_root, ctl);
        snprintf (own, osize, "/");
        return stat (mount, &st) == 0 && S_ISDIR (st.st_mode) ? 0 : -1;
    }
    if (cgroup_find_mount ("cgroup", ctl, mount, msize) < 0
        || cgroup_own_path (ctl, own, osize) < 0)
        return -1;
    return 0;
}

/* Whether a hierarchy at mount is used already (cpu,cpuacct co-mounted). */
static bool
s_seen (const cgroups_t *tree, const char *mount)
{
    size_t n = strlen (mount);
    for (size_t i = 0; i < tree->ndirs; i++)
        if (strncmp (tree->dirs[i], mount, n) == 0 && tree->dirs[i][n] == '/')
            return true;
    return false;
}

static int
s_setup (cgroups_t *tree, const cgroups_config_t *c, hearth_error_t *err)
{
    char mount[1024], own[2048];
    for (int i = 0; s_required[i]; i++) {
        if (s_locate (c, s_required[i], mount, sizeof mount, own, sizeof own)
            < 0)
            return hearth_errprintf (err,
                                     "no cgroup v1 %s hierarchy is mounted "
                                     "and no cgroup v2 hierarchy offers "
                                     "memory and cpu",
                                     s_required[i]);
        if (cgroups_add_dir (tree, s_required[i], mount, own, c->worker_id, err)
            < 0)
            return -1;
    }
    for (int i = 0; s_optional[i]; i++)
        if (s_locate (c, s_optional[i], mount, sizeof mount, own, sizeof own)
                == 0
            && !s_seen (tree, mount)
            && cgroups_add_dir (tree, s_optional[i], mount, own, c->worker_id,
                                err)
                   < 0)
            return -1;
    return 0;
}

/* Write one limit, or say which one could not be set. */
static int
s_set (cgroup_t *g, const char *dir, const char *file, long long value,
       hearth_error_t *err)
{
    char text[32];
    snprintf (text, sizeof text, "%lld", value);
    if (cgroup_write (g->tree, dir, file, text) < 0)
        return hearth_errprintf (err, "cannot set %s/%s to %s: %s", dir, file,
                                 text, strerror (errno));
    return 0;
}

static int
s_limits (cgroup_t *g, const cgroup_limits_t *l, hearth_error_t *err)
{
    const char *mem = cgroup_dir_of (g, "memory");
    const char *cpu = cgroup_dir_of (g, "cpu");
    const char *pids = cgroup_dir_of (g, "pids");
    /* the memory limit first: memsw may not be below it */
    if (s_set (g, mem, "memory.limit_in_bytes", l->memory_bytes, err) < 0)
        return -1;
    if ((g->tree->plain_files
         || cgroup_has_file (mem, "memory.memsw.limit_in_bytes"))
        && s_set (g, mem, "memory.memsw.limit_in_bytes", l->memory_bytes, err)
               < 0)
        return -1;
    if (s_set (g, mem, "memory.oom_control", 1, err) < 0)
        return -1;
    int64_t period = cgroup_read_int (cpu, "cpu.cfs_period_us");
    if (period <= 0) {
        period = s_default_period_us;
        if (s_set (g, cpu, "cpu.cfs_period_us", period, err) < 0)
            return -1;
    }
    if (l->cores > 0
        && s_set (g, cpu, "cpu.cfs_quota_us", (long long) l->cores * period,
                  err)
               < 0)
        return -1;
    if (pids && l->pids_max > 0
        && s_set (g, pids, "pids.max", l->pids_max, err) < 0)
        return -1;
    return 0;
}

static bool
s_oom (cgroup_t *g)
{
    const char *mem = cgroup_dir_of (g, "memory");
    return cgroup_read_key (mem, "memory.oom_control", "under_oom") > 0
           || cgroup_read_key (mem, "memory.oom_control", "oom_kill") > 0;
}

static void
s_stats (cgroup_t *g, cgroup_stats_t *s)
{
    const char *mem = cgroup_dir_of (g, "memory");
    const char *acct = cgroup_dir_of (g, "cpuacct");
    s->peak_bytes = cgroup_read_int (mem, "memory.max_usage_in_bytes");
    s->oom = s_oom (g);
    /* cpuacct co-mounted with cpu keeps its files in the cpu directory */
    s->cpu_usage_ns = cgroup_read_int (acct ? acct : cgroup_dir_of (g, "cpu"),
                                       "cpuacct.usage");
}

/* No group-wide kill in v1: the caller signals each process. */
static int
s_kill (cgroup_t *g)
{
    (void) g;
    return -1;
}

const cgroup_backend_t cgroup_v1_backend = {
    .setup = s_setup,
    .limits = s_limits,
    .stats = s_stats,
    .oom = s_oom,
    .kill = s_kill,
};
