/*  ha.c - standby masters elected through ZooKeeper; see ha.h.

    The election's callback decides the master's role from where it was
    and what zkelect says now:

        STANDBY   + LEADER            -> LEADER: open the journal, recover
        LEADER    + SUSPENDED         -> SUSPENDED: place nothing
        SUSPENDED + LEADER, same epoch -> LEADER again
        LEADER or SUSPENDED + anything else (STANDBY, or LEADER with a new
                  epoch: the session expired meanwhile) -> re-execute
        STANDBY   + STANDBY/SUSPENDED -> STANDBY, the leader's URL noted
*/
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "libcore/clock.h"
#include "libcore/log.h"
#include "libcore/masters.h"
#include "libcore/proto.h"
#include "libcore/sock.h"
#include "libcore/web.h"
#include "libcore/zkacl.h"
#include "libcore/zkelect.h"
#include "master/claims.h"
#include "master/follow.h"
#include "master/ha.h"
#include "master/recover.h"
#include "master/replicate.h"

/* How often zkelect retries what failed (it asks for about 100 ms). */
static const size_t s_zk_tick_ms = 100;
/* Bounds of --zookeeper-session (ZooKeeper's servers narrow it further to
   2..20 ticks of theirs; zkelect_session_ms says what they granted). */
static const int64_t s_session_min_ms = 1000, s_session_max_ms = 600000;
/* The flag that marks the block a re-execution appends to the command
   line (the ports it had bound), so that the next one replaces it. */
static const char s_reexec_flag[] = "--restarted-after-leading";

/* "HOST:PORT[,HOST:PORT...]", each port 1..65535. */
static int
s_check_hosts (const char *hosts, hearth_error_t *err)
{
    const char *p = hosts;
    while (*p) {
        const char *end = strchr (p, ',');
        size_t n = end ? (size_t) (end - p) : strlen (p);
        const char *colon = memchr (p, ':', n);
        char *stop = NULL;
        long port = colon ? strtol (colon + 1, &stop, 10) : 0;
        if (!colon || colon == p || stop != p + n || port < 1 || port > 65535)
            return hearth_errprintf (
                err,
                "bad value for zookeeper: '%.*s' (expected "
                "HOST:PORT[,HOST:PORT...])",
                (int) n, p);
        p += n + (end != NULL);
        if (end && !*p)
            return hearth_errprintf (err,
                                     "bad value for zookeeper: '%s' ends "
                                     "with a comma",
                                     hosts);
    }
    return 0;
}

/* --zookeeper-auth's credentials into buf: 1, 0 without the option, -1
   with err. */
static int
s_read_auth (master_t *m, char *buf, size_t size, hearth_error_t *err)
{
    const char *file = hearth_conf_str (m->conf, "zookeeper-auth");
    if (!file)
        return 0;
    hearth_error_t why;
    if (zkacl_read_auth (file, buf, size, &why) < 0)
        return hearth_errprintf (err, "bad value for zookeeper-auth: %s",
                                 why.text);
    return 1;
}

int
master_ha_configure (master_t *m, hearth_error_t *err)
{
    const char *hosts = hearth_conf_str (m->conf, "zookeeper");
    const char *dir = hearth_conf_str (m->conf, "zookeeper-dir");
    int64_t session = hearth_conf_ms (m->conf, "zookeeper-session");
    m->role = MASTER_SINGLE;
    if (!hosts)
        return hearth_conf_str (m->conf, "masters")
                   ? hearth_errprintf (err, "--masters is for standby "
                                            "masters: it needs --zookeeper")
                   : 0;
    if (!*hosts || s_check_hosts (hosts, err) < 0)
        return *hosts ? -1
                      : hearth_errprintf (err, "bad value for zookeeper: "
                                               "empty (expected HOST:PORT)");
    if (!dir || dir[0] != '/'
        || (strlen (dir) > 1 && dir[strlen (dir) - 1] == '/'))
        return hearth_errprintf (err,
                                 "bad value for zookeeper-dir: '%s' (expected "
                                 "an absolute ZooKeeper path like /hearth)",
                                 dir ? dir : "");
    if (session < s_session_min_ms || session > s_session_max_ms)
        return hearth_errprintf (err,
                                 "bad value for zookeeper-session: %lld ms "
                                 "(expected 1s to 10m)",
                                 (long long) session);
    if (!hearth_conf_str (m->conf, "journal"))
        return hearth_errprintf (err,
                                 "--zookeeper needs --journal DIR: a standby "
                                 "keeps the leader's state there, and a new "
                                 "leader recovers from it");
    char auth[ZKACL_AUTH_MAX + 1];
    if (s_read_auth (m, auth, sizeof auth, err) < 0)
        return -1;
    explicit_bzero (auth, sizeof auth);
    const char *masters = hearth_conf_str (m->conf, "masters");
    hearth_error_t why;
    if (masters && !(m->masters = hearth_masters_parse (masters, &why)))
        return hearth_errprintf (err, "bad value for masters: %s", why.text);
    m->role = MASTER_STANDBY;
    return 0;
}

/* The leader's URL from its node's data ({"url": ...}), into m. */
static void
s_note_leader (master_t *m, const char *data, uint64_t epoch)
{
    char before[sizeof m->leader_url];
    uint64_t epoch_before = m->leader_epoch;
    snprintf (before, sizeof before, "%s", m->leader_url);
    m->leader_url[0] = '\0';
    cJSON *j = data ? cJSON_Parse (data) : NULL;
    const char *url = hearth_json_str (j, "url");
    if (url && m->masters && !hearth_masters_has (m->masters, url))
        /* whoever wrote it must not get the journal, nor the clients */
        log_warn ("STANDBY: the election names the leader %.300s, which is "
                  "not one of --masters (%s): not followed, and not named "
                  "to clients",
                  url, hearth_masters_text (m->masters));
    else if (url)
        snprintf (m->leader_url, sizeof m->leader_url, "%s", url);
    else if (data)
        log_warn ("election: the leader's data is not a master's: %.200s",
                  data);
    cJSON_Delete (j);
    m->leader_epoch = *m->leader_url ? epoch : 0;
    if (strcmp (before, m->leader_url) == 0 && epoch_before == m->leader_epoch)
        return;
    log_info ("STANDBY: the leader is %s",
              *m->leader_url ? m->leader_url : "unknown");
    master_follow_leader (m);
}

static void
s_lead (master_t *m, const zkelect_view_t *v)
{
    hearth_error_t err;
    m->role = MASTER_LEADER;
    m->epoch = m->leader_epoch = v->epoch;
    snprintf (m->leader_url, sizeof m->leader_url, "%s", m->url);
    char held[400], why[600];
    master_follow_state_t st = master_follow_state (m, held, sizeof held);
    log_warn ("LEADER with epoch %llu (%s): recovering from the journal",
              (unsigned long long) v->epoch, v->why);
    /* Leading on an older state is what a user must hear of: whatever the
       last leader took on since is unknown here (docs/design-changes.md) */
    if (st == FOLLOW_BEHIND)
        log_error ("LEADER WITHOUT THE LAST LEADER'S STATE: %s; workers and "
                   "drivers that come back register again, but what the "
                   "last leader alone knew is lost",
                   held);
    else
        log_info ("LEADER: %s", held);
    snprintf (why, sizeof why, "%s%s%s", v->why,
              st == FOLLOW_BEHIND ? "; without the last leader's state: " : "",
              st == FOLLOW_BEHIND ? held : "");
    /* what the standby wrote is what the restarted master reads */
    master_follow_close (m);
    if (!(m->repl = replicate_new ())) {
        log_error ("out of memory: cannot lead; starting again");
        m->reexec = true;
        return;
    }
    if (master_journal_open (m, &err) < 0) {
        /* cannot lead without its state: give the role back */
        log_error ("%s: cannot lead; starting again as a candidate", err.text);
        m->reexec = true;
        return;
    }
    m->dirty = true;
    /* the workers come to it now: claims of ids wait for them */
    claims_open (m->claims, hearth_mono_ms () + master_recovery_timeout (m));
    master_publish_master (m, "leading", why);
    if (m->recovering)
        master_publish_master (m, "recovering",
                               "elected on a journal with live workers or "
                               "applications");
}

static void
s_on_role (void *arg, const zkelect_view_t *v)
{
    master_t *m = arg;
    bool led = m->role == MASTER_LEADER || m->role == MASTER_SUSPENDED;
    if (m->reexec)
        return;
    if (!led) {
        if (v->role == ZKELECT_LEADER)
            s_lead (m, v);
        else
            s_note_leader (m, v->role == ZKELECT_STANDBY ? v->leader : NULL,
                           v->epoch);
        return;
    }
    if (v->role == ZKELECT_SUSPENDED) {
        if (m->role == MASTER_LEADER)
            log_warn ("SUSPENDED (epoch %llu): %s; placing nothing until "
                      "ZooKeeper is back",
                      (unsigned long long) m->epoch, v->why);
        m->role = MASTER_SUSPENDED;
        return;
    }
    if (v->role == ZKELECT_LEADER && v->epoch == m->epoch) {
        if (m->role == MASTER_SUSPENDED)
            log_warn ("LEADER again with epoch %llu (%s): scheduling resumes",
                      (unsigned long long) m->epoch, v->why);
        m->role = MASTER_LEADER;
        m->dirty = true;
        return;
    }
    log_warn ("the leadership of epoch %llu is lost for good (%s: now %s, "
              "epoch %llu): re-executing as a fresh candidate",
              (unsigned long long) m->epoch, v->why,
              zkelect_role_name (v->role), (unsigned long long) v->epoch);
    m->reexec = true;
}

static int
s_on_zk (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) fd;
    master_t *m = arg;
    zkelect_dispatch (m->zk);
    return m->reexec ? -1 : 0;
}

static int
s_on_zk_tick (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    (void) timer_id;
    master_t *m = arg;
    zkelect_tick (m->zk);
    return m->reexec ? -1 : 0;
}

/* The node's data: {"url", "events_url", "web_url"} (a new string). */
static char *
s_node_data (master_t *m)
{
    cJSON *j = cJSON_CreateObject ();
    cJSON_AddStringToObject (j, "url", m->url);
    cJSON_AddStringToObject (j, "events_url", m->events_url);
    if (m->web)
        cJSON_AddStringToObject (j, "web_url", hearth_web_url (m->web));
    char *text = cJSON_PrintUnformatted (j);
    cJSON_Delete (j);
    return text;
}

/* --masters must name this master as it advertises itself: standbys and
   clients would never follow it otherwise.  Without the list, said once:
   any URL in the election is followed. */
static int
s_check_masters (master_t *m, hearth_error_t *err)
{
    if (!m->masters) {
        log_warn ("no --masters: this master follows, and names to "
                  "clients, whatever leader URL the election holds "
                  "(docs/high-availability.md, \"Securing ZooKeeper\")");
        return 0;
    }
    if (!hearth_masters_has (m->masters, m->url))
        return hearth_errprintf (err,
                                 "--masters does not list this master's own "
                                 "URL, %s (its --advertise-host or --host, "
                                 "and --port): standbys and clients would "
                                 "never follow it; list it as clients do",
                                 m->url);
    return 0;
}

int
master_ha_open (master_t *m, hearth_error_t *err)
{
    if (m->role == MASTER_SINGLE)
        return 0;
    if (s_check_masters (m, err) < 0)
        return -1;
    if (master_follow_open (m, err) < 0)
        return -1;
    char *data = s_node_data (m);
    if (!data)
        return hearth_errprintf (err, "out of memory");
    char auth[ZKACL_AUTH_MAX + 1];
    int with_auth = s_read_auth (m, auth, sizeof auth, err);
    zkelect_config_t config = {
        .hosts = hearth_conf_str (m->conf, "zookeeper"),
        .dir = hearth_conf_str (m->conf, "zookeeper-dir"),
        .session_ms = (int) hearth_conf_ms (m->conf, "zookeeper-session"),
        .data = data,
        .auth = with_auth > 0 ? auth : NULL};
    if (with_auth >= 0)
        m->zk = zkelect_new (&config, s_on_role, m, err);
    explicit_bzero (auth, sizeof auth);
    free (data);
    if (!m->zk)
        return -1;
    if (!with_auth)
        log_warn ("INSECURE: no --zookeeper-auth: the election's nodes under "
                  "%s are made as closed as ZooKeeper allows without "
                  "credentials (nobody may change or delete them), but "
                  "anyone who reaches ZooKeeper may add nodes to the "
                  "election and so stop every master from leading "
                  "(docs/security.md, ZooKeeper)",
                  config.dir);
    if (hearth_loop_fd (m->loop, zkelect_fd (m->zk), s_on_zk, m) < 0
        || hearth_loop_timer (m->loop, s_zk_tick_ms, 0, s_on_zk_tick, m) < 0)
        return hearth_errprintf (err, "cannot set up the event loop");
    log_info ("STANDBY: a candidate of the election on %s under %s (session "
              "%d ms, %s)",
              config.hosts, config.dir, config.session_ms,
              with_auth ? "with credentials" : "without credentials");
    return 0;
}

void
master_ha_close (master_t *m)
{
    zkelect_destroy (&m->zk);
    master_follow_close (m);
    replicate_destroy (&m->repl);
    hearth_masters_destroy (&m->masters);
}

/* The port of a URL "scheme://HOST:PORT", or -1. */
static int
s_port (const char *url)
{
    const char *colon = url ? strrchr (url, ':') : NULL;
    int port = colon ? atoi (colon + 1) : -1;
    return port > 0 ? port : -1;
}

char **
master_ha_argv (master_t *m)
{
    int n = 0;
    while (n < m->argc && strcmp (m->argv[n], s_reexec_flag) != 0)
        n++;
    char **argv = calloc ((size_t) n + 8, sizeof *argv);
    if (!argv)
        return NULL;
    int k = 0;
    for (; k < n; k++)
        argv[k] = strdup (m->argv[k]);
    char port[16], eport[16], wport[16];
    snprintf (port, sizeof port, "%d", s_port (m->url));
    snprintf (eport, sizeof eport, "%d", s_port (m->events_url));
    argv[k++] = strdup (s_reexec_flag);
    argv[k++] = strdup ("--port");
    argv[k++] = strdup (port);
    argv[k++] = strdup ("--events-port");
    argv[k++] = strdup (eport);
    if (m->web) {
        snprintf (wport, sizeof wport, "%d", s_port (hearth_web_url (m->web)));
        argv[k++] = strdup ("--web-port");
        argv[k++] = strdup (wport);
    }
    for (int i = 0; i < k; i++)
        if (!argv[i]) {
            for (i = 0; i < k; i++)
                free (argv[i]);
            free (argv);
            return NULL;
        }
    return argv;
}

void
master_ha_argv_free (char ***argv_p)
{
    char **argv = *argv_p;
    if (!argv)
        return;
    for (int i = 0; argv[i]; i++)
        free (argv[i]);
    free (argv);
    *argv_p = NULL;
}
