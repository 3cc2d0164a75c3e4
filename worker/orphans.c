/*  orphans.c - finding and killing what executors left behind; see
    orphans.h. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "libcore/log.h"
#include "worker/orphans.h"

/* The most of a process's environment read (a marker past it is missed;
   the worker puts its markers in an environment of the worker's size). */
static const size_t s_environ_max = 1024 * 1024;

int
orphans_subreaper (void)
{
    return prctl (PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* The environment a process was started with (NUL-separated entries),
   into a new buffer of *len bytes; NULL when it cannot be read (gone, a
   zombie, another user's). */
static char *
s_environ (pid_t pid, size_t *len)
{
    char path[64];
    snprintf (path, sizeof path, "/proc/%d/environ", (int) pid);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t size = 8192, got = 0;
    char *buf = malloc (size + 1);
    while (buf) {
        ssize_t n = read (fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t) n;
        if (got == size && size < s_environ_max) {
            char *bigger = realloc (buf, size * 2 + 1);
            if (!bigger)
                break;
            buf = bigger;
            size *= 2;
        }
        else if (got == size)
            break;
    }
    close (fd);
    if (buf)
        buf[got] = '\0';
    *len = got;
    return buf;
}

/* The value of name in a NUL-separated environment, or NULL. */
static const char *
s_getenv (const char *env, size_t len, const char *name)
{
    size_t nlen = strlen (name);
    for (size_t i = 0; i < len; i += strlen (env + i) + 1)
        if (strncmp (env + i, name, nlen) == 0 && env[i + nlen] == '=')
            return env + i + nlen + 1;
    return NULL;
}

static bool
s_belongs (pid_t pid, const char *work_dir, zhashx_t *execs)
{
    size_t len;
    char *env = s_environ (pid, &len);
    if (!env)
        return false;
    const char *dir = s_getenv (env, len, ORPHANS_ENV_DIR);
    const char *exec = s_getenv (env, len, ORPHANS_ENV_EXEC);
    bool match = dir && strcmp (dir, work_dir) == 0
                 && (!execs || (exec && zhashx_lookup (execs, exec)));
    free (env);
    return match;
}

/* Parent and state of pid from /proc/PID/stat ("PID (COMM) S PPID ..."),
   into *ppid and *state.  0, or -1 when it is gone. */
static int
s_stat (pid_t pid, pid_t *ppid, char *state)
{
    char path[64], buf[512];
    snprintf (path, sizeof path, "/proc/%d/stat", (int) pid);
    int fd = open (path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read (fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close (fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *end = strrchr (buf, ')'); /* COMM may hold ')' and ' ' */
    int parent;
    if (!end || sscanf (end + 1, " %c %d", state, &parent) != 2)
        return -1;
    *ppid = (pid_t) parent;
    return 0;
}

size_t
orphans_children (pid_t *pids, size_t max)
{
    /* every process's stat: /proc/PID/task/TID/children needs a kernel
       option that not every kernel has */
    DIR *proc = opendir ("/proc");
    struct dirent *ent;
    pid_t self = getpid (), ppid;
    size_t n = 0;
    char state;
    while (proc && n < max && (ent = readdir (proc))) {
        char *end;
        long pid = strtol (ent->d_name, &end, 10);
        if (*end || pid <= 1 || pid == self)
            continue;
        if (s_stat ((pid_t) pid, &ppid, &state) == 0 && ppid == self
            && state != 'Z' && state != 'X')
            pids[n++] = (pid_t) pid;
    }
    if (proc)
        closedir (proc);
    return n;
}

bool
orphans_kill_one (pid_t pid)
{
    /* A group leader (a command task, a daemon that called setsid) takes
       its group along. */
    if (getpgid (pid) == pid)
        kill (-pid, SIGKILL);
    return kill (pid, SIGKILL) == 0;
}

size_t
orphans_kill (const char *work_dir, zhashx_t *execs)
{
    DIR *proc = opendir ("/proc");
    struct dirent *ent;
    pid_t self = getpid ();
    size_t killed = 0;
    while (proc && (ent = readdir (proc))) {
        char *end;
        long pid = strtol (ent->d_name, &end, 10);
        if (*end || pid <= 1 || pid == self
            || !s_belongs ((pid_t) pid, work_dir, execs))
            continue;
        killed += orphans_kill_one ((pid_t) pid);
    }
    if (proc)
        closedir (proc);
    return killed;
}
