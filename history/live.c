/*  live.c - a log without app_end: running or failed; see live.h. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

#include "history/live.h"
#include "libcore/stateview.h"

/* /proc's boot time is whole seconds: a start this much after the log's
   still counts as before it. */
static const int64_t s_start_slack_ms = 1500;

static int64_t
s_boot_ms (void)
{
    FILE *f = fopen ("/proc/stat", "r");
    char line[256];
    long long btime = -1;
    while (f && fgets (line, sizeof line, f))
        if (sscanf (line, "btime %lld", &btime) == 1)
            break;
    if (f)
        fclose (f);
    return btime < 0 ? -1 : (int64_t) btime * 1000;
}

void
hist_here_init (hist_here_t *h, int64_t stale_ms)
{
    memset (h, 0, sizeof *h);
    if (gethostname (h->host, sizeof h->host - 1) < 0)
        h->host[0] = '\0';
    struct timeval tv;
    gettimeofday (&tv, NULL);
    h->now_ms = (int64_t) tv.tv_sec * 1000 + tv.tv_usec / 1000;
    h->stale_ms = stale_ms;
    h->boot_ms = s_boot_ms ();
    h->ticks = sysconf (_SC_CLK_TCK);
}

/* A process's start (wall clock ms) and whether it is a zombie, from
   /proc/PID/stat: 0, or -1 when there is no such process or no /proc. */
static int
s_proc_start (const hist_here_t *h, int64_t pid, int64_t *start_ms,
              bool *zombie)
{
    char path[64], buf[1024];
    snprintf (path, sizeof path, "/proc/%lld/stat", (long long) pid);
    FILE *f = fopen (path, "r");
    if (!f)
        return -1;
    size_t n = fread (buf, 1, sizeof buf - 1, f);
    fclose (f);
    buf[n] = '\0';
    char *p = strrchr (buf, ')'); /* the name may hold spaces and ')' */
    if (!p || h->boot_ms < 0 || h->ticks <= 0)
        return -1;
    char state;
    unsigned long long ticks;
    /* after the name: state (3), then fields 4..21 skipped, starttime 22 */
    if (sscanf (p + 1,
                " %c %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s %*s "
                "%*s %*s %*s %*s %llu",
                &state, &ticks)
        != 2)
        return -1;
    *zombie = state == 'Z' || state == 'X';
    *start_ms =
        h->boot_ms + (int64_t) (ticks * 1000 / (unsigned long long) h->ticks);
    return 0;
}

bool
hist_pid_alive (const hist_here_t *h, int64_t pid, int64_t before_ms)
{
    if (pid <= 0 || pid > 0x7fffffff)
        return false;
    int64_t start;
    bool zombie;
    if (s_proc_start (h, pid, &start, &zombie) == 0)
        return !zombie
               && (before_ms < 0 || start <= before_ms + s_start_slack_ms);
    /* no /proc: the pid alone */
    return kill ((pid_t) pid, 0) == 0 || errno == EPERM;
}

/* Same host: equal names, or equal up to the first dot of either. */
static bool
s_same_host (const char *a, const char *b)
{
    size_t la = strcspn (a, "."), lb = strcspn (b, ".");
    return strcmp (a, b) == 0 || (la == lb && strncmp (a, b, la) == 0);
}

const char *
hist_shown_state (const hist_app_t *a, int64_t mtime_ms, const hist_here_t *h,
                  char *reason, size_t size)
{
    if (a->state) {
        snprintf (reason, size, "%s", a->reason ? a->reason : "");
        return a->state;
    }
    bool here = !a->host || s_same_host (a->host, h->host);
    if (here && a->pid > 0) {
        if (hist_pid_alive (h, a->pid, a->start_ms)) {
            reason[0] = '\0';
            return "RUNNING";
        }
        snprintf (reason, size,
                  "the log ended without app_end (driver pid %lld is gone)",
                  (long long) a->pid);
        return "FAILED";
    }
    if (h->now_ms - mtime_ms < h->stale_ms) {
        reason[0] = '\0';
        return "RUNNING";
    }
    char d[32];
    hearth_view_duration (h->stale_ms, d, sizeof d);
    snprintf (reason, size,
              "the log ended without app_end (no event for over %s%s%s)", d,
              a->host ? ", driver on " : "", a->host ? a->host : "");
    return "FAILED";
}

const char *
hist_shown_state_in (const hist_app_t *a, const hist_dir_t *d,
                     const hist_log_t *log, const hist_here_t *h, char *reason,
                     size_t size)
{
    const char *next = a->state ? NULL : hist_dir_next_driver (d, log->id);
    if (!next)
        return hist_shown_state (a, log->mtime_ms, h, reason, size);
    snprintf (reason, size,
              "its driver was lost: driver %lu resumed the application (its "
              "log: %s)",
              hist_driver_epoch (next), next);
    return "FAILED";
}
