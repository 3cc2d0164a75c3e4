/*  cgroup.c - a worker's tree of control groups and one group per child,
    on either backend (cgroup_v1.c, cgroup_v2.c; their shared file
    helpers in cgroupfs.c).  See cgroup.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "worker/cgroup.h"
#include "worker/cgroup_impl.h"

/* Groups' directories (cgroupfs ignores the mode; a fake tree keeps it). */
static const mode_t s_dir_mode = 0755;
/* Passes over a group's processes when killing them one by one (a fork
   racing the first pass is caught by a later one). */
static const int s_kill_passes = 4;
/* A stale group found at start-up: how long its killed processes may
   take to leave it (ms), checked every s_stale_step_ms. */
static const int s_stale_wait_ms = 2000, s_stale_step_ms = 20;

/* --- the tree ---------------------------------------------------------- */

/* Drop the hierarchies found (a backend that could not finish). */
static void
s_forget_dirs (cgroups_t *self)
{
    for (size_t i = 0; i < self->ndirs; i++) {
        free (self->dirs[i]);
        free (self->kinds[i]);
        self->dirs[i] = self->kinds[i] = NULL;
    }
    self->ndirs = 0;
}

cgroups_t *
cgroups_new (const cgroups_config_t *c, hearth_error_t *err)
{
    cgroups_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->plain_files = c->plain_files;
    int version = c->version;
    if (version == 0) {
        /* v2 when its hierarchy offers what is needed; else v1's error
           says why neither works */
        cgroups_config_t v2 = *c;
        v2.version = 2;
        self->be = &cgroup_v2_backend;
        self->version = 2;
        hearth_error_t e2;
        if (self->be->setup (self, &v2, &e2) == 0)
            return self;
        s_forget_dirs (self);
        version = 1;
    }
    self->version = version;
    self->be = version == 2 ? &cgroup_v2_backend : &cgroup_v1_backend;
    if (self->be->setup (self, c, err) < 0) {
        cgroups_destroy (&self);
        return NULL;
    }
    return self;
}

/* Remove dir and, in a fake tree, the files in it first. */
static int
s_rmdir (const cgroups_t *tree, const char *dir)
{
    if (tree->plain_files) {
        DIR *d = opendir (dir);
        struct dirent *ent;
        char path[4200];
        while (d && (ent = readdir (d)))
            if (ent->d_type == DT_REG) {
                snprintf (path, sizeof path, "%s/%s", dir, ent->d_name);
                unlink (path);
            }
        if (d)
            closedir (d);
    }
    return rmdir (dir);
}

void
cgroups_destroy (cgroups_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    cgroups_t *self = *self_p;
    for (size_t i = 0; i < self->ndirs; i++) {
        /* WORKER_ID, then hearth if no other worker uses it */
        if (s_rmdir (self, self->dirs[i]) == 0) {
            char *slash = strrchr (self->dirs[i], '/');
            *slash = '\0';
            s_rmdir (self, self->dirs[i]);
        }
        free (self->dirs[i]);
        free (self->kinds[i]);
    }
    free (self);
    *self_p = NULL;
    errno = saved;
}

int
cgroups_version (const cgroups_t *self)
{
    return self->version;
}

const char *
cgroups_path (const cgroups_t *self)
{
    return self->ndirs ? self->dirs[0] : "";
}

/* Signal every pid listed in DIR/cgroup.procs.  Returns how many. */
static int
s_kill_listed (const char *dir)
{
    char buf[65536];
    int n = 0;
    if (cgroup_read (dir, "cgroup.procs", buf, sizeof buf) <= 0)
        return 0;
    for (char *p = buf; *p;) {
        char *end;
        long pid = strtol (p, &end, 10);
        if (end == p)
            break;
        if (pid > 0 && kill ((pid_t) pid, SIGKILL) == 0)
            n++;
        p = end;
    }
    return n;
}

/* Kill what is in the group directories, wait for them to leave, and
   remove them. */
static void
s_clean_one (cgroups_t *self, const char *name)
{
    char dir[4200];
    for (size_t i = 0; i < self->ndirs; i++) {
        snprintf (dir, sizeof dir, "%s/%s", self->dirs[i], name);
        for (int t = 0; t < s_stale_wait_ms / s_stale_step_ms; t++) {
            s_kill_listed (dir);
            if (s_rmdir (self, dir) == 0 || errno == ENOENT)
                break;
            nanosleep (&(struct timespec){0, s_stale_step_ms * 1000000L}, NULL);
        }
    }
}

/* The names of the groups in dir, a new NULL-terminated array (caller
   frees each and it), or NULL on no memory or none. */
static char **
s_list_groups (const char *dir)
{
    DIR *d = opendir (dir);
    struct dirent *ent;
    char **names = NULL;
    size_t n = 0;
    while (d && (ent = readdir (d))) {
        if (ent->d_type != DT_DIR || ent->d_name[0] == '.')
            continue;
        char **more = realloc (names, (n + 2) * sizeof *names);
        if (!more || !(more[n] = strdup (ent->d_name))) {
            names = more;
            break;
        }
        names = more;
        names[++n] = NULL;
    }
    if (names)
        names[n] = NULL;
    if (d)
        closedir (d);
    return names;
}

size_t
cgroups_clean_stale (cgroups_t *self)
{
    size_t found = 0;
    /* each hierarchy in turn: a name removed in all of them is no longer
       listed in the next; one that stays (a process that would not die)
       is tried once */
    for (size_t i = 0; i < self->ndirs; i++) {
        char **names = s_list_groups (self->dirs[i]);
        for (size_t k = 0; names && names[k]; k++) {
            found += i == 0;
            s_clean_one (self, names[k]);
            free (names[k]);
        }
        free (names);
    }
    return found;
}

size_t
cgroups_count (const cgroups_t *self)
{
    size_t n = 0;
    DIR *d = self->ndirs ? opendir (self->dirs[0]) : NULL;
    struct dirent *ent;
    while (d && (ent = readdir (d)))
        n += ent->d_type == DT_DIR && ent->d_name[0] != '.';
    if (d)
        closedir (d);
    return n;
}

/* --- one group --------------------------------------------------------- */

cgroup_t *
cgroup_new (cgroups_t *tree, const char *name, const cgroup_limits_t *limits,
            hearth_error_t *err)
{
    if (!name[0] || strchr (name, '/') || name[0] == '.') {
        hearth_errprintf (err, "bad cgroup name '%s'", name);
        return NULL;
    }
    cgroup_t *g = calloc (1, sizeof *g);
    if (!g || !(g->name = strdup (name))) {
        free (g);
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    g->tree = tree;
    g->memory_limit_bytes = limits->memory_bytes;
    for (size_t i = 0; i < tree->ndirs; i++) {
        if (asprintf (&g->dirs[i], "%s/%s", tree->dirs[i], name) < 0) {
            g->dirs[i] = NULL;
            hearth_errprintf (err, "out of memory");
            goto error;
        }
        if (mkdir (g->dirs[i], s_dir_mode) < 0) {
            hearth_errprintf (err, "cannot create cgroup %s: %s", g->dirs[i],
                              strerror (errno));
            free (g->dirs[i]);
            g->dirs[i] = NULL;
            goto error;
        }
    }
    if (tree->be->limits (g, limits, err) < 0)
        goto error;
    return g;
error:
    cgroup_destroy (&g);
    return NULL;
}

int
cgroup_join_fds (cgroup_t *self, int *fds, size_t max, hearth_error_t *err)
{
    size_t n = 0;
    char path[4200];
    /* v1: the thread's file.  The child writes "0" while it is its
       process's only thread, which moves the whole process as
       cgroup.procs would, and a thread moving itself is the one
       migration the kernel makes without its global lock, whose taking
       waits for an RCU grace period (10 to 15 ms; docs/performance.md,
       "The v1 join without the grace period").  v2 moves one thread only
       between threaded groups of one domain: cgroup.procs there. */
    const char *file = self->tree->version == 1 ? "tasks" : "cgroup.procs";
    for (size_t i = 0; i < self->tree->ndirs && n < max; i++) {
        snprintf (path, sizeof path, "%s/%s", self->dirs[i], file);
        int flags = O_WRONLY | O_CLOEXEC;
        if (self->tree->plain_files)
            flags |= O_CREAT;
        if ((fds[n] = open (path, flags, 0644)) < 0) {
            hearth_errprintf (err, "cannot open %s: %s", path,
                              strerror (errno));
            while (n > 0)
                close (fds[--n]);
            return -1;
        }
        n++;
    }
    return (int) n;
}

int
cgroup_dir_fd (const cgroup_t *self)
{
    if (self->tree->version != 2 || self->tree->plain_files || !self->dirs[0])
        return -1;
    return open (self->dirs[0], O_RDONLY | O_DIRECTORY | O_CLOEXEC);
}

void
cgroup_stats (cgroup_t *self, cgroup_stats_t *stats)
{
    stats->memory_limit_bytes = self->memory_limit_bytes;
    stats->peak_bytes = -1;
    stats->cpu_usage_ns = -1;
    stats->oom = false;
    self->tree->be->stats (self, stats);
    stats->oom |= self->oom_seen;
}

bool
cgroup_oom (cgroup_t *self)
{
    if (!self->oom_seen && self->tree->be->oom (self))
        self->oom_seen = true;
    return self->oom_seen;
}

int
cgroup_kill (cgroup_t *self)
{
    int n = self->tree->be->kill (self);
    if (n >= 0)
        return n;
    n = 0;
    for (int pass = 0; pass < s_kill_passes; pass++) {
        int k = 0;
        for (size_t i = 0; i < self->tree->ndirs; i++)
            if (self->dirs[i])
                k += s_kill_listed (self->dirs[i]);
        n += k;
        if (k == 0)
            break;
    }
    return n;
}

bool
cgroup_empty (cgroup_t *self)
{
    char buf[64];
    for (size_t i = 0; i < self->tree->ndirs; i++)
        if (self->dirs[i]
            && cgroup_read (self->dirs[i], "cgroup.procs", buf, sizeof buf) > 0)
            return false;
    return true;
}

bool
cgroup_has_pid (const cgroup_t *self, pid_t pid)
{
    char buf[65536];
    if (self->tree->ndirs == 0 || !self->dirs[0]
        || cgroup_read (self->dirs[0], "cgroup.procs", buf, sizeof buf) <= 0)
        return false;
    for (char *p = buf; *p;) {
        char *end;
        long v = strtol (p, &end, 10);
        if (end == p)
            break;
        if (v == (long) pid)
            return true;
        p = end;
    }
    return false;
}

int
cgroup_destroy (cgroup_t **self_p)
{
    if (!self_p || !*self_p)
        return 0;
    cgroup_t *self = *self_p;
    int rc = 0, saved = 0;
    for (size_t i = 0; i < self->tree->ndirs; i++) {
        if (!self->dirs[i])
            continue;
        if (s_rmdir (self->tree, self->dirs[i]) < 0 && errno != ENOENT) {
            saved = errno;
            rc = -1;
            continue;
        }
        free (self->dirs[i]);
        self->dirs[i] = NULL;
    }
    if (rc < 0) {
        errno = saved == ENOTEMPTY ? EBUSY : saved;
        return -1;
    }
    free (self->name);
    free (self);
    *self_p = NULL;
    return 0;
}

void
cgroup_forget (cgroup_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    cgroup_t *self = *self_p;
    for (size_t i = 0; i < CGROUP_MAX_DIRS; i++)
        free (self->dirs[i]);
    free (self->name);
    free (self);
    *self_p = NULL;
}

const char *
cgroup_name (const cgroup_t *self)
{
    return self->name;
}
