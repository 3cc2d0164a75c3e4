/*  cgroup_v2.c - the cgroup v2 backend: one unified hierarchy; the
    worker's group must offer the memory and cpu controllers (pids where
    offered), which are enabled down to the worker's directory; limits
    memory.max, memory.swap.max = 0 (no swap), cpu.max (cores x the
    period), pids.max, and memory.oom.group = 1 (an OOM kills the whole
    group, never one of its processes); cgroup.kill ends a group at once.

    v2 allows processes only in leaves of a delegated tree: a worker that
    shares its group with no other process (a systemd service with
    Delegate=yes) moves itself into OWN/hearth-worker so that OWN can hand
    controllers down.  See cgroup.h. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "worker/cgroup_impl.h"

/* The CFS period written with the quota (the kernel's default). */
static const int64_t s_period_us = 100000;
/* Where the worker moves itself when its group must hand controllers
   down (no process may stay in an inner group). */
static const char s_self_leaf[] = "hearth-worker";

static int
s_locate (const cgroups_config_t *c, char *mount, size_t msize, char *own,
          size_t osize)
{
    if (c->fs_root) {
        snprintf (mount, msize, "%s", c->fs_root);
        snprintf (own, osize, "/");
        return 0;
    }
    if (cgroup_find_mount ("cgroup2", NULL, mount, msize) < 0
        || cgroup_own_path (NULL, own, osize) < 0)
        return -1;
    return 0;
}

/* Whether word is one of the space-separated words of list. */
static bool
s_has_word (const char *list, const char *word)
{
    size_t n = strlen (word);
    for (const char *p = list; (p = strstr (p, word)); p += n)
        if ((p == list || p[-1] == ' ')
            && (p[n] == ' ' || p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

/* Hand the controllers down from dir to its children. */
static int
s_enable (cgroups_t *tree, const char *dir, const char *controllers,
          hearth_error_t *err)
{
    if (cgroup_write (tree, dir, "cgroup.subtree_control", controllers) == 0)
        return 0;
    return hearth_errprintf (err, "cannot enable %s in %s: %s", controllers,
                             dir, strerror (errno));
}

/* The worker's own group hands controllers down; when processes keep it
   from doing so (EBUSY), the worker moves into a leaf of its own first. */
static int
s_enable_own (cgroups_t *tree, const char *base, const char *controllers,
              hearth_error_t *err)
{
    if (cgroup_write (tree, base, "cgroup.subtree_control", controllers) == 0)
        return 0;
    if (errno != EBUSY)
        return s_enable (tree, base, controllers, err);
    char leaf[4200];
    snprintf (leaf, sizeof leaf, "%s/%s", base, s_self_leaf);
    if ((mkdir (leaf, 0755) < 0 && errno != EEXIST)
        || cgroup_write (tree, leaf, "cgroup.procs", "0") < 0)
        return hearth_errprintf (err, "cannot move the worker into %s: %s",
                                 leaf, strerror (errno));
    if (cgroup_write (tree, base, "cgroup.subtree_control", controllers) == 0)
        return 0;
    return hearth_errprintf (err,
                             "cannot enable %s in %s: %s (other processes "
                             "share the worker's group: give it a group of "
                             "its own, e.g. systemd's Delegate=yes)",
                             controllers, base, strerror (errno));
}

static int
s_setup (cgroups_t *tree, const cgroups_config_t *c, hearth_error_t *err)
{
    char mount[1024], own[2048], base[4096], offered[512];
    if (s_locate (c, mount, sizeof mount, own, sizeof own) < 0)
        return hearth_errprintf (err, "no cgroup v2 hierarchy is mounted");
    snprintf (base, sizeof base, "%s%s", mount, strcmp (own, "/") ? own : "");
    if (cgroup_read (base, "cgroup.controllers", offered, sizeof offered) < 0)
        return hearth_errprintf (err, "cannot read %s/cgroup.controllers: %s",
                                 base, strerror (errno));
    offered[strcspn (offered, "\n")] = '\0';
    static const char *const need[] = {"memory", "cpu", NULL};
    for (int i = 0; need[i]; i++)
        if (!s_has_word (offered, need[i]))
            return hearth_errprintf (err,
                                     "the cgroup v2 group %s offers no %s "
                                     "controller (it offers: %s)",
                                     base, need[i],
                                     offered[0] ? offered : "none");
    const char *controllers =
        s_has_word (offered, "pids") ? "+memory +cpu +pids" : "+memory +cpu";
    if (s_enable_own (tree, base, controllers, err) < 0
        || cgroups_add_dir (tree, "unified", mount, own, c->worker_id, err) < 0)
        return -1;
    /* and in OWN/hearth, then OWN/hearth/WORKER_ID */
    char hearth_dir[4200];
    snprintf (hearth_dir, sizeof hearth_dir, "%s/hearth", base);
    if (s_enable (tree, hearth_dir, controllers, err) < 0
        || s_enable (tree, tree->dirs[0], controllers, err) < 0)
        return -1;
    return 0;
}

static int
s_set (cgroup_t *g, const char *file, const char *value, hearth_error_t *err)
{
    if (cgroup_write (g->tree, g->dirs[0], file, value) < 0)
        return hearth_errprintf (err, "cannot set %s/%s to %s: %s", g->dirs[0],
                                 file, value, strerror (errno));
    return 0;
}

static int
s_limits (cgroup_t *g, const cgroup_limits_t *l, hearth_error_t *err)
{
    char text[64];
    const char *dir = g->dirs[0];
    bool plain = g->tree->plain_files;
    snprintf (text, sizeof text, "%lld", (long long) l->memory_bytes);
    if (s_set (g, "memory.max", text, err) < 0)
        return -1;
    /* no swap file of its own when the kernel accounts no swap */
    if ((plain || cgroup_has_file (dir, "memory.swap.max"))
        && s_set (g, "memory.swap.max", "0", err) < 0)
        return -1;
    if (s_set (g, "memory.oom.group", "1", err) < 0)
        return -1;
    if (l->cores > 0) {
        snprintf (text, sizeof text, "%lld %lld",
                  (long long) l->cores * s_period_us, (long long) s_period_us);
        if (s_set (g, "cpu.max", text, err) < 0)
            return -1;
    }
    if (l->pids_max > 0 && (plain || cgroup_has_file (dir, "pids.max"))) {
        snprintf (text, sizeof text, "%lld", (long long) l->pids_max);
        if (s_set (g, "pids.max", text, err) < 0)
            return -1;
    }
    return 0;
}

static bool
s_oom (cgroup_t *g)
{
    return cgroup_read_key (g->dirs[0], "memory.events", "oom_kill") > 0
           || cgroup_read_key (g->dirs[0], "memory.events", "oom_group_kill")
                  > 0;
}

static void
s_stats (cgroup_t *g, cgroup_stats_t *s)
{
    /* memory.peak: kernels from 5.19 */
    s->peak_bytes = cgroup_read_int (g->dirs[0], "memory.peak");
    s->oom = s_oom (g);
    int64_t usec = cgroup_read_key (g->dirs[0], "cpu.stat", "usage_usec");
    s->cpu_usage_ns = usec >= 0 ? usec * 1000 : -1;
}

static int
s_kill (cgroup_t *g)
{
    /* cgroup.kill: kernels from 5.14; else one by one */
    if (!g->tree->plain_files && !cgroup_has_file (g->dirs[0], "cgroup.kill"))
        return -1;
    return cgroup_write (g->tree, g->dirs[0], "cgroup.kill", "1") == 0 ? 1 : -1;
}

const cgroup_backend_t cgroup_v2_backend = {
    .setup = s_setup,
    .limits = s_limits,
    .stats = s_stats,
    .oom = s_oom,
    .kill = s_kill,
};
