/*  children.c - the worker's supervised child processes: start, stop
    (TERM, then KILL after the grace: hearth_loop_child_kill), their exit
    (the loop's exit handler), strays killed and reaped, and the
    directories removed when their time has come; see children.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <czmq.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/safefile.h"
#include "libcore/spawn.h"
#include "worker/cgroup.h"
#include "worker/childgroups.h"
#include "worker/children.h"
#include "worker/cleanups.h"
#include "worker/orphans.h"
#include "worker/userfs.h"

/* Children's directories and the ones between: private to the user the
   child runs as. */
static const mode_t s_dir_mode = 0700;
/* Their output files. */
static const mode_t s_log_mode = 0600;
/* Strays are looked for at the tick after a reap, and at least this
   often (ms). */
static const int64_t s_sweep_period_ms = 1000;
/* Strays looked at in one sweep, at most. */
enum { s_sweep_max = 4096 };
/* At the table's end: rounds of killing strays (a stray's own children
   come to the worker once it is killed), s_end_step_ms apart. */
static const int s_end_rounds = 100, s_end_step_ms = 10;

/* One child process.  Its block holds, after the struct, the caller's
   data (aligned), then its name and its directory. */
typedef struct {
    children_t *table;           /* its table (its exit handler's) */
    const children_kind_t *kind; /* what it is */
    void *arg;                   /* for its kind's callbacks */
    const char *name;            /* its key in the table (in the block) */
    const char *dir;             /* relative to the root (in the block) */
    void *data;                  /* the caller's copy (in the block), or NULL */
    int cores;                   /* cores it may use */
    int64_t memory_mb;           /* memory it may use */
    pid_t pid;                   /* leads its own process group */
    bool stopping;               /* we asked it to stop */
    cgroup_t *cgroup;            /* its group (owned), or NULL */
    bool oom_said;               /* its OOM kill is logged */
    int report_fd;               /* its exec's outcome, while not yet read
                                    (hearth_spawn_report), or -1 */
} s_child_t;

struct children {
    hearth_loop_t *loop;        /* watches the children (borrowed) */
    children_reaped_fn *reaped; /* told after each exit, or NULL */
    void *reaped_arg;           /* given to it */
    char *root;                 /* where the children's directories are */
    int64_t kill_grace_ms;      /* SIGTERM to SIGKILL */
    zhashx_t *table;            /* name -> s_child_t * (owned) */
    cleanups_t *cleanups;       /* directories waiting for removal */
    childgroups_t *groups;      /* the children's cgroups, or NULL: no
                                   isolation (owned) */
    bool sweep_due;             /* a process was reaped: look for strays */
    int64_t next_sweep_ms;      /* look for strays by then */
};

/* --- cgroups ------------------------------------------------------------ */

char *
children_oom_text (const children_exit_t *x, char *buf, size_t size)
{
    snprintf (
        buf, size, "killed: out of memory, limit %lld MiB, peak %lld MiB",
        (long long) (x->memory_limit_bytes >> 20),
        (long long) (x->peak_rss_bytes > 0 ? x->peak_rss_bytes >> 20 : -1));
    return buf;
}

int64_t
children_memory_limit (const children_t *self, int64_t memory_mb)
{
    return self->groups ? childgroups_memory_limit (self->groups, memory_mb)
                        : -1;
}

/* The group name of a child: given, or its dir with '-' for '/'. */
static void
s_group_name (const children_spawn_t *s, char *buf, size_t size)
{
    snprintf (buf, size, "%s", s->group ? s->group : s->dir);
    for (char *p = buf; *p; p++)
        if (*p == '/')
            *p = '-';
}

/* Kill what is left in a child's group and remove it (now or later). */
static void
s_group_end (children_t *self, s_child_t *c)
{
    if (self->groups)
        childgroups_end (self->groups, &c->cgroup);
}

/* --- strays ------------------------------------------------------------ */

/* Whether pid belongs to a live child: it is the child, or (with cgroups)
   it is in the child's group, which it leaves with. */
static bool
s_belongs (children_t *self, pid_t pid)
{
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table))
        if (c->pid == pid || (c->cgroup && cgroup_has_pid (c->cgroup, pid)))
            return true;
    return false;
}

/* Kill the strays: the worker's children (it is their subreaper,
   orphans.h) that belong to no live child: a task's process whose parent
   ended, whatever it did to its environment, session or process group.
   Returns how many were killed. */
static size_t
s_sweep (children_t *self)
{
    pid_t pids[s_sweep_max];
    size_t n = orphans_children (pids, s_sweep_max), killed = 0;
    for (size_t i = 0; i < n; i++)
        if (!s_belongs (self, pids[i]))
            killed += orphans_kill_one (pids[i]);
    return killed;
}

/* At the end, the table empty: the strays, and theirs, until none is
   left (bounded), reaped here. */
static void
s_sweep_all (children_t *self)
{
    size_t killed = 0;
    for (int round = 0; round < s_end_rounds; round++) {
        size_t n = s_sweep (self);
        hearth_loop_reap_unwatched (self->loop);
        killed += n;
        if (n == 0)
            break;
        usleep (s_end_step_ms * 1000);
    }
    if (killed)
        log_warn ("killed %zu processes that tasks left behind", killed);
}

children_t *
children_new (const children_config_t *c)
{
    children_t *self = calloc (1, sizeof *self);
    if (!self)
        return NULL;
    self->loop = c->loop;
    self->reaped = c->reaped;
    self->reaped_arg = c->reaped_arg;
    self->root = strdup (c->root);
    self->table = zhashx_new ();
    self->cleanups = cleanups_new (c->root);
    self->kill_grace_ms = c->kill_grace_ms;
    childgroups_config_t gc = {.cgroups = c->cgroups,
                               .overhead_percent = c->overhead_percent,
                               .overhead_min_mb = c->overhead_min_mb,
                               .pids_max = c->pids_max};
    bool groups_ok = !c->cgroups || (self->groups = childgroups_new (&gc));
    if (!self->root || !self->table || !self->cleanups || !groups_ok) {
        children_destroy (&self);
        errno = ENOMEM;
        return NULL;
    }
    return self;
}

void
children_destroy (children_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    children_t *self = *self_p;
    for (s_child_t *c = self->table ? zhashx_first (self->table) : NULL; c;
         c = zhashx_next (self->table)) {
        /* its group too, even if it has exited, then reaped here */
        hearth_loop_child_signal (self->loop, c->pid, SIGKILL);
        hearth_loop_child_end (self->loop, c->pid, -1, NULL);
        s_group_end (self, c);
        if (c->report_fd >= 0)
            close (c->report_fd);
        free (c);
    }
    childgroups_destroy (&self->groups);
    if (self->table) {
        zhashx_purge (self->table);
        s_sweep_all (self);
    }
    zhashx_destroy (&self->table);
    cleanups_destroy (&self->cleanups);
    free (self->root);
    free (self);
    *self_p = NULL;
    errno = saved;
}

/* --- starting ---------------------------------------------------------- */

int
children_path (const children_t *self, const char *dir, char *path, size_t size,
               hearth_error_t *err)
{
    int n = snprintf (path, size, "%s/%s", self->root, dir);
    if (n < 0 || (size_t) n >= size)
        return hearth_errprintf (err, "path too long: %s/%s", self->root, dir);
    return 0;
}

/* The owner of what is made for a child running as ids (NULL: the
   worker) into *o; o or NULL. */
static const userfs_owner_t *
s_owner (const hearth_spawn_ids_t *ids, userfs_owner_t *o)
{
    if (!ids)
        return NULL;
    *o = (userfs_owner_t){ids->uid, ids->gid};
    return o;
}

int
children_mkdir (children_t *self, const char *dir,
                const hearth_spawn_ids_t *ids, char *path, size_t size,
                hearth_error_t *err)
{
    userfs_owner_t o;
    if (children_path (self, dir, path, size, err) < 0)
        return -1;
    /* each component under the root in turn: APP, then APP/EXEC */
    return userfs_mkdirs (self->root, dir, s_dir_mode, s_owner (ids, &o), err);
}

/* A record with copies of the name, the directory and the data. */
static s_child_t *
s_child_new (const children_spawn_t *s)
{
    const size_t align = alignof (max_align_t);
    size_t head = (sizeof (s_child_t) + align - 1) / align * align;
    size_t name_size = strlen (s->name) + 1, dir_size = strlen (s->dir) + 1;
    s_child_t *c = calloc (1, head + s->data_size + name_size + dir_size);
    if (!c)
        return NULL;
    char *p = (char *) c + head;
    if (s->data_size)
        c->data = memcpy (p, s->data, s->data_size);
    c->name = memcpy (p + s->data_size, s->name, name_size);
    c->dir = memcpy (p + s->data_size + name_size, s->dir, dir_size);
    c->kind = s->kind;
    c->arg = s->arg;
    c->cores = s->cores;
    c->memory_mb = s->memory_mb;
    return c;
}

static int s_on_exit (hearth_loop_t *loop, const hearth_loop_exit_t *x,
                      void *arg);

/* Spawn c in path (open: dir) with the output files there, into its
   group (or none), watched by the table's loop.  Its pid, or -1. */
static pid_t
s_start (children_t *self, s_child_t *c, const children_spawn_t *s,
         const char *path, int dir, hearth_error_t *err)
{
    cgroup_t *g = c->cgroup;
    int *report_fd = &c->report_fd;
    int join[CGROUP_MAX_DIRS];
    int njoin = g ? cgroup_join_fds (g, join, CGROUP_MAX_DIRS, err) : 0;
    if (njoin < 0)
        return -1;
    /* v2: created in its group, no join to wait for (cgroup.h) */
    int dir_fd = g ? cgroup_dir_fd (g) : -1;
    userfs_owner_t o;
    const userfs_owner_t *owner = s_owner (s->ids, &o);
    int out = userfs_create (dir, path, "stdout", true, s_log_mode, owner, err);
    int errfd = out < 0 ? -1
                        : userfs_create (dir, path, "stderr", true, s_log_mode,
                                         owner, err);
    pid_t pid = -1;
    if (errfd >= 0) {
        hearth_spawn_opts_t opts = {.argv = s->argv,
                                    .envp = s->envp,
                                    .cwd = path,
                                    .stdin_fd = HEARTH_SPAWN_DEVNULL,
                                    .stdout_fd = out,
                                    .stderr_fd = errfd,
                                    .new_pgroup = true,
                                    .join_fds = join,
                                    .njoin_fds = (size_t) njoin,
                                    .cgroup_fd = dir_fd >= 0 ? &dir_fd : NULL,
                                    .ids = s->ids,
                                    /* the child's join may wait for the
                                       kernel (a grace period on v1): the
                                       worker does not wait with it */
                                    .exec_report_fd = g ? report_fd : NULL};
        pid = hearth_loop_spawn (self->loop, &opts, true, s_on_exit, c, err);
    }
    if (out >= 0)
        close (out);
    if (errfd >= 0)
        close (errfd);
    for (int i = 0; i < njoin; i++)
        close (join[i]);
    if (dir_fd >= 0)
        close (dir_fd);
    return pid;
}

pid_t
children_spawn (children_t *self, const children_spawn_t *s,
                hearth_error_t *err)
{
    char path[4096];
    if (zhashx_lookup (self->table, s->name))
        return hearth_errprintf (err, "%s %s is already running", s->kind->what,
                                 s->name);
    int dir = children_mkdir (self, s->dir, s->ids, path, sizeof path, err);
    if (dir < 0)
        return -1;
    s_child_t *c = s_child_new (s);
    if (!c) {
        close (dir);
        return hearth_errprintf (err, "out of memory");
    }
    char group[256];
    s_group_name (s, group, sizeof group);
    int64_t start_us = hearth_mono_us ();
    if (self->groups
        && !(c->cgroup = childgroups_create (self->groups, group, s->kind->what,
                                             s->cores, s->memory_mb, err))) {
        close (dir);
        free (c);
        return -1;
    }
    c->report_fd = -1;
    c->table = self;
    pid_t pid = c->pid = s_start (self, c, s, path, dir, err);
    close (dir);
    if (pid > 0 && zhashx_insert (self->table, c->name, c) < 0) {
        /* started, but cannot be kept: not left behind */
        hearth_loop_child_signal (self->loop, pid, SIGKILL);
        hearth_loop_child_end (self->loop, pid, -1, NULL);
        pid = hearth_errprintf (err, "out of memory");
    }
    if (pid < 0) {
        s_group_end (self, c);
        if (c->report_fd >= 0)
            close (c->report_fd);
        free (c);
        return pid;
    }
    /* the cost of a launch, with or without its group (bench-isolation) */
    log_debug ("%s %s spawned in %lld us%s", s->kind->what, s->name,
               (long long) (hearth_mono_us () - start_us),
               c->cgroup ? " with its cgroup" : "");
    return pid;
}

/* --- stopping ---------------------------------------------------------- */

static void
s_stop (children_t *self, s_child_t *c)
{
    if (c->stopping)
        return;
    c->stopping = true;
    /* SIGTERM to its group, SIGKILL after the grace (its exit says so) */
    hearth_loop_child_kill (self->loop, c->pid, (size_t) self->kill_grace_ms);
}

int
children_stop (children_t *self, const children_kind_t *kind, const char *name)
{
    s_child_t *c = zhashx_lookup (self->table, name);
    if (!c || c->kind != kind)
        return -1;
    log_info ("stopping %s %s (pid %d)", kind->what, c->name, (int) c->pid);
    s_stop (self, c);
    return 0;
}

/* Whether path (relative to the root) is dir or below it. */
static bool
s_under (const char *path, const char *dir)
{
    size_t n = strlen (dir);
    return strncmp (path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

void
children_stop_under (children_t *self, const char *dir)
{
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table))
        if (!dir || s_under (c->dir, dir))
            s_stop (self, c);
}

/* The outcome of a child's exec, at its reap: when it could not exec,
   why, into text. */
static void
s_exec_outcome (s_child_t *c, char *text, size_t size)
{
    if (c->report_fd < 0)
        return;
    hearth_error_t err;
    if (hearth_spawn_report (c->report_fd, c->kind->what, &err) < 0)
        snprintf (text, size, "%s", err.text);
    close (c->report_fd);
    c->report_fd = -1;
}

/* At a tick: a child that has exec'd no longer needs its pipe (at EOF,
   no data); one whose error waits there keeps it for its reap. */
static void
s_exec_done (s_child_t *c)
{
    struct pollfd p = {.fd = c->report_fd, .events = POLLIN};
    if (c->report_fd >= 0 && poll (&p, 1, 0) == 1
        && (p.revents & (POLLHUP | POLLIN)) == POLLHUP) {
        close (c->report_fd);
        c->report_fd = -1;
    }
}

/* --- reaping ----------------------------------------------------------- */

/* c exited and was reaped (status, peak_rss_bytes from wait4's rusage
   or -1): take it off the table, read its cgroup's counters (peak, OOM
   kill), SIGKILL what is left in its process group and in its cgroup,
   remove the cgroup (later, at a tick, while killed processes are still
   leaving it), tell its kind's exit callback. */
static void
s_reap (children_t *self, s_child_t *c, int status, int64_t peak_rss_bytes,
        int64_t now_ms)
{
    pid_t pid = c->pid;
    self->sweep_due = true; /* a stray's parent may have been this */
    zhashx_delete (self->table, c->name);
    /* The group may hold the child's own children: end them (the leader
       is reaped, but its group keeps its id while they live). */
    kill (-pid, SIGKILL);
    cgroup_stats_t st = {.memory_limit_bytes = -1, .peak_bytes = -1};
    int64_t start_us = hearth_mono_us ();
    if (c->cgroup) {
        cgroup_stats (c->cgroup, &st);
        s_group_end (self, c);
        log_debug ("%s %s: cgroup read and removed in %lld us", c->kind->what,
                   c->name, (long long) (hearth_mono_us () - start_us));
    }
    char text[HEARTH_ERROR_TEXT_MAX], path[4096];
    hearth_wait_status_text (status, text, sizeof text);
    s_exec_outcome (c, text, sizeof text);
    children_path (self, c->dir, path, sizeof path, NULL);
    children_exit_t e = {
        .name = c->name,
        .path = path,
        .data = c->data,
        .pid = pid,
        .stopped = c->stopping,
        .exit_status = WIFEXITED (status) ? WEXITSTATUS (status) : -1,
        .signal = WIFSIGNALED (status) ? WTERMSIG (status) : 0,
        .text = text,
        .now_ms = now_ms,
        .peak_rss_bytes = st.peak_bytes > 0 ? st.peak_bytes : peak_rss_bytes,
        .oom_killed = st.oom,
        .memory_limit_bytes = st.memory_limit_bytes,
    };
    if (c->kind->exit)
        c->kind->exit (c->arg, &e);
    free (c);
}

/* The loop's exit handler of a child (arg): its reap, then the strays
   that the loop's watch of it held back (hearth_loop_reap_unwatched
   stops at a watched child), then the owner's hook. */
static int
s_on_exit (hearth_loop_t *loop, const hearth_loop_exit_t *x, void *arg)
{
    s_child_t *c = arg;
    children_t *self = c->table;
    if (x->killed)
        log_warn ("%s %s did not stop within %lld ms of SIGTERM: SIGKILL",
                  c->kind->what, c->name, (long long) self->kill_grace_ms);
    /* wait4: the child's peak memory (ru_maxrss, KiB on Linux) comes with
       its end, covering the children it reaped itself */
    s_reap (self, c, x->status,
            x->ru.ru_maxrss > 0 ? (int64_t) x->ru.ru_maxrss * 1024 : -1,
            hearth_mono_ms ());
    hearth_loop_reap_unwatched (loop);
    return self->reaped ? self->reaped (self->reaped_arg) : 0;
}

/* Whether a child runs in ROOT/dir or below (a cleanups_busy_fn). */
static bool
s_busy (void *arg, const char *dir)
{
    children_t *self = arg;
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table))
        if (s_under (c->dir, dir))
            return true;
    return false;
}

/* A child's group at its memory limit: the whole group goes (the
   reap reads the OOM from the group). */
static void
s_check_oom (s_child_t *c)
{
    if (!c->cgroup || !cgroup_oom (c->cgroup))
        return;
    int n = cgroup_kill (c->cgroup);
    if (n > 0 && !c->oom_said)
        log_warn ("%s %s (pid %d) reached its memory limit: killing its "
                  "cgroup (%d processes)",
                  c->kind->what, c->name, (int) c->pid, n);
    c->oom_said |= n > 0;
}

void
children_tick (children_t *self, int64_t now_ms)
{
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table)) {
        s_check_oom (c);
        s_exec_done (c);
    }
    if (self->groups)
        childgroups_tick (self->groups);
    cleanups_remove_due (self->cleanups, now_ms, s_busy, self);
    if (self->sweep_due || now_ms >= self->next_sweep_ms) {
        size_t n = s_sweep (self);
        if (n)
            log_warn ("killed %zu processes that tasks left behind (their "
                      "parent ended: they came to this worker, their "
                      "subreaper)",
                      n);
        self->sweep_due = false;
        self->next_sweep_ms = now_ms + s_sweep_period_ms;
    }
    /* a stray killed above, or one whose SIGCHLD came while a watched
       child's exit held the sweep back */
    hearth_loop_reap_unwatched (self->loop);
}

void
children_remove_later (children_t *self, const char *dir, int64_t due_ms)
{
    cleanups_add (self->cleanups, dir, due_ms);
}

void
children_keep (children_t *self, const char *dir)
{
    cleanups_cancel (self->cleanups, dir);
}

/* --- views ------------------------------------------------------------- */

bool
children_has (const children_t *self, const char *name)
{
    return zhashx_lookup (self->table, name) != NULL;
}

const void *
children_data (const children_t *self, const children_kind_t *kind,
               const char *name)
{
    const s_child_t *c = zhashx_lookup (self->table, name);
    return c && c->kind == kind ? c->data : NULL;
}

size_t
children_count (const children_t *self, const children_kind_t *kind)
{
    if (!kind)
        return zhashx_size (self->table);
    size_t n = 0;
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table))
        n += c->kind == kind;
    return n;
}

void
children_usage (const children_t *self, int *cores, int64_t *memory_mb)
{
    *cores = 0;
    *memory_mb = 0;
    for (s_child_t *c = zhashx_first (self->table); c;
         c = zhashx_next (self->table)) {
        *cores += c->cores;
        *memory_mb += c->memory_mb;
    }
}

cJSON *
children_json (const children_t *self, const children_kind_t *kind)
{
    cJSON *list = cJSON_CreateArray ();
    for (s_child_t *c = zhashx_first (self->table); list && c;
         c = zhashx_next (self->table)) {
        if (c->kind != kind)
            continue;
        cJSON *o = cJSON_CreateObject ();
        if (!o || !cJSON_AddItemToArray (list, o)) {
            cJSON_Delete (o);
            cJSON_Delete (list);
            return NULL;
        }
        if (kind->json)
            kind->json (c->arg, c->name, c->data, o);
        cJSON_AddNumberToObject (o, "cores", c->cores);
        cJSON_AddNumberToObject (o, "memory_mb", (double) c->memory_mb);
        cJSON_AddNumberToObject (o, "pid", (int) c->pid);
    }
    return list;
}
