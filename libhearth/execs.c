/*  execs.c - the driver's executors: their ROUTER socket and its handler
    table, registration (with the libraries and files of ship.c, the
    resources of execres.c), heartbeats and losses.  What goes to
    executors (offers, kills, stops) is execs_send.c's; what tasks go to an
    executor and what its status updates do, launch.c's; what the loss
    of a worker does to its executors and its map outputs,
    execs_worker.c's.
*/
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libcore/clock.h"
#include "libcore/dispatch.h"
#include "libcore/ids.h"
#include "libcore/intkeys.h"
#include "libcore/keys.h"
#include "libcore/labels.h"
#include "libcore/log.h"
#include "libcore/sock.h"
#include "libcore/zap.h"
#include "libhearth/eventlog.h"
#include "libhearth/evexec.h"
#include "libhearth/execres.h"
#include "libhearth/execs.h"
#include "libhearth/execs_int.h"
#include "libhearth/execsock.h"
#include "libhearth/launch.h"
#include "libhearth/ship.h"
#include "libhearth/shuffle.h"
#include "libhearth/tlfeed.h"

/* Messages read per wake-up before other handlers get a turn. */
static const int s_max_drain = 256;
/* FILE_CHUNK bytes answered per wake-up before other handlers get a
   turn: each is read from disk and checksummed here, and the link to
   the master (its heartbeats) waits meanwhile. */
static const uint64_t s_max_turn_chunk_bytes = 16 * 1024 * 1024;
/* Silent executors lost per tick (the others on the next ones). */
enum { s_max_silent = 64 };

static int s_on_router (hearth_loop_t *loop, zsock_t *sock, void *arg);

static void
s_exec_destroy (void **item)
{
    exec_t *x = *item;
    if (!x)
        return;
    zframe_destroy (&x->rid);
    free (x->key);
    hearth_resources_clear (&x->resources);
    cJSON_Delete (x->labels);
    free (x);
    *item = NULL;
}

/* ---- the set ------------------------------------------------------------ */

/* A REGISTER_EXECUTOR read before the application's id: the master
   sends REGISTERED_APPLICATION and LAUNCH_EXECUTOR at once, and when the
   driver's thread did not run for as long as an executor takes to start
   (a loaded machine), both its sockets are readable together and the
   executors' may be read first.  Kept (at most s_max_early) until
   execs_set_app, then handled; refused as a wrong application before. */
typedef struct {
    zframe_t *rid;        /* its routing id (owned) */
    hearth_sender_t peer; /* its address */
    hearth_msg_t *msg;    /* the message (owned) */
} s_early_t;
enum { s_max_early = 256 };

static void
s_early_destroy (void **item)
{
    s_early_t *e = *item;
    zframe_destroy (&e->rid);
    hearth_msg_destroy (&e->msg);
    free (e);
    *item = NULL;
}

static void s_dispatch (execs_t *self, zframe_t *rid,
                        const hearth_sender_t *peer, hearth_msg_t *msg);

execs_t *
execs_new (const execs_opts_t *opts, const execs_cbs_t *cbs,
           hearth_error_t *err)
{
    execs_t *self = calloc (1, sizeof *self);
    if (!self) {
        hearth_errprintf (err, "out of memory");
        return NULL;
    }
    self->conf = opts->conf;
    snprintf (self->token, sizeof self->token, "%s", opts->token);
    self->hb_interval_ms = opts->hb_interval_ms;
    self->hb_liveness = opts->hb_liveness;
    self->max_result_bytes =
        (int64_t) hearth_conf_bytes (opts->conf, "max-result-bytes");
    self->ts = work_taskset (opts->work);
    self->work = opts->work;
    self->cbs = *cbs;
    self->by_id = zhashx_new ();
    self->by_key = zhash_new ();
    self->gone = zhashx_new ();
    self->refusals = hearth_refusals_new ();
    self->launch = launch_new (opts->work);
    self->early = zlistx_new ();
    if (!self->by_id || !self->by_key || !self->gone || !self->refusals
        || !self->launch || !self->early) {
        hearth_errprintf (err, "out of memory");
        execs_destroy (&self);
        return NULL;
    }
    zlistx_set_destructor (self->early, s_early_destroy);
    hearth_intkeys_setup (self->by_id);
    zhashx_set_destructor (self->by_id, s_exec_destroy);
    if (!(self->ship = ship_new (opts->conf, err)))
        execs_destroy (&self);
    else if (!(self->spread = shipspread_new ())) {
        hearth_errprintf (err, "out of memory");
        execs_destroy (&self);
    }
    return self;
}

void
execs_destroy (execs_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    execs_t *self = *self_p;
    execsock_destroy (&self->sock);
    zhash_destroy (&self->by_key);
    zhashx_destroy (&self->gone);
    zhashx_destroy (&self->by_id);
    hearth_refusals_destroy (&self->refusals);
    zlistx_destroy (&self->early);
    if (self->ship)
        log_info ("shipped files and libraries: %llu bytes sent in chunks",
                  (unsigned long long) ship_bytes_sent (self->ship));
    ship_destroy (&self->ship);
    shipspread_destroy (&self->spread);
    launch_destroy (&self->launch);
    free (self);
    *self_p = NULL;
    errno = saved;
}

int
execs_open (execs_t *self, hearth_loop_t *loop, const char *towards,
            bool secure, hearth_error_t *err)
{
    self->sock = execsock_new (self->conf, loop, towards, secure, s_on_router,
                               self, err);
    if (!self->sock)
        return -1;
    self->router = execsock_router (self->sock);
    self->loop = loop;
    return 0;
}

void
execs_close (execs_t *self)
{
    execsock_close (&self->sock);
    self->router = NULL;
}

const char *
execs_url (const execs_t *self)
{
    return self->sock ? execsock_url (self->sock) : "";
}

const char *
execs_public_key (const execs_t *self)
{
    return self->sock ? execsock_public_key (self->sock) : NULL;
}

void
execs_set_token (execs_t *self, const char *token)
{
    snprintf (self->token, sizeof self->token, "%s", token);
}

void
execs_set_app (execs_t *self, const char *app_id)
{
    snprintf (self->app_id, sizeof self->app_id, "%s", app_id);
    s_early_t *e;
    bool any = false;
    while ((e = zlistx_first (self->early))) { /* in the order read */
        zlistx_detach_cur (self->early);
        s_dispatch (self, e->rid, &e->peer, e->msg);
        void *item = e;
        s_early_destroy (&item);
        any = true;
    }
    if (any)
        self->cbs.changed (self->cbs.arg);
}

void
execs_set_heartbeat (execs_t *self, int64_t interval_ms, int64_t liveness)
{
    self->hb_interval_ms = interval_ms;
    self->hb_liveness = liveness;
}

/* The places of x besides its host: "executor:N" (into self, 24 bytes:
   a task whose input x keeps in memory prefers it), "worker:ID" (into
   worker) and its worker's labels (into labels), pointed at by places;
   how many. */
static size_t
s_place_names (const exec_t *x, char *self, char *worker,
               char labels[][HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2],
               const char **places)
{
    size_t n = 0;
    snprintf (self, 24, "executor:%d", x->exec_id);
    places[n++] = self;
    if (x->worker[0]) {
        snprintf (worker, HEARTH_ID_MAX + 8, "worker:%s", x->worker);
        places[n++] = worker;
    }
    size_t nlabels = hearth_labels_specs (x->labels, labels);
    for (size_t i = 0; i < nlabels; i++)
        places[n++] = labels[i];
    return n;
}

/* x is coming to its host and worker, or no longer (locality: the tasks
   preferring them wait for it rather than go to the first one up). */
static void
s_expect (execs_t *self, exec_t *x, bool coming)
{
    char worker[sizeof x->worker + 8];
    char labels[HEARTH_LABELS_MAX]
               [HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2];
    const char *places[HEARTH_LABELS_MAX + 2];
    char self_place[24];
    size_t n = s_place_names (x, self_place, worker, labels, places);
    if (hearth_taskset_expect (self->ts, x->host, places, n, coming) == 0)
        x->expected = coming;
}

static exec_t *
s_add (execs_t *self, int exec_id, int cores, const char *host)
{
    exec_t *x = execs_find (self, exec_id);
    if (x)
        return x;
    if (!(x = calloc (1, sizeof *x)))
        return NULL;
    x->exec_id = exec_id;
    x->cores = cores;
    x->peak_rss = -1;
    x->server = SHUFFLE_NO_SERVER; /* until it registers */
    snprintf (x->host, sizeof x->host, "%s", host ? host : "");
    x->last_recv_ms = x->last_send_ms = hearth_mono_ms ();
    zhashx_insert (self->by_id, hearth_intkey (exec_id), x);
    return x;
}

int
execs_add (execs_t *self, int exec_id, int cores, const char *host,
           const char *worker_id, int64_t memory_mb, const cJSON *labels)
{
    exec_t *x = s_add (self, exec_id, cores, host);
    if (!x)
        return -1;
    cJSON_Delete (x->labels);
    x->labels = labels ? cJSON_Duplicate (labels, true) : NULL;
    snprintf (x->worker, sizeof x->worker, "%s", worker_id ? worker_id : "");
    x->memory_mb = memory_mb;
    if (!x->registered && !x->expected)
        s_expect (self, x, true);
    if (x->registered) /* it said hello first */
        shuffle_servers_set_worker (work_servers (self->work), x->server,
                                    x->worker);
    return 0;
}

bool
execs_any_registered (const execs_t *self)
{
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        if (x->registered)
            return true;
    return false;
}

void
execs_tlfeed_again (execs_t *self)
{
    tlfeed_t *tl = work_tlfeed (self->work);
    for (exec_t *x = zhashx_first (self->by_id); tl && x;
         x = zhashx_next (self->by_id))
        if (x->registered) {
            evexec_t info = execs_ev_info (x);
            tlfeed_exec (tl, &info, NULL, x->added_ms);
        }
}

void
execs_list (const execs_t *self, cJSON *list)
{
    for (exec_t *x = zhashx_first (self->by_id); list && x;
         x = zhashx_next (self->by_id)) {
        if (!x->registered)
            continue;
        cJSON *o = cJSON_CreateObject ();
        cJSON_AddStringToObject (o, "app_id", self->app_id);
        cJSON_AddNumberToObject (o, "exec_id", x->exec_id);
        cJSON_AddNumberToObject (o, "cores", x->cores);
        cJSON_AddItemToArray (list, o);
    }
}

void
execs_each (const execs_t *self, execs_each_fn *fn, void *arg)
{
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id))
        fn (arg, x->exec_id, x->cores, x->registered);
}

void
execs_set_peak_rss (execs_t *self, int exec_id, int64_t peak_rss_bytes)
{
    exec_t *x = execs_find (self, exec_id);
    if (x && peak_rss_bytes > x->peak_rss)
        x->peak_rss = peak_rss_bytes;
}

int64_t
execs_peak_rss (const execs_t *self, int exec_id)
{
    const exec_t *x = execs_find (self, exec_id);
    return x ? x->peak_rss : -1;
}

/* Most lost executors' keys remembered (then forgotten all at once: a
   late message from one forgotten is refused, logged once a minute). */
enum { s_max_gone = 4096 };

/* Remember the routing key of an executor lost: what it sent before it
   knew is dropped quietly when it comes. */
static void
s_note_gone (execs_t *self, const char *key)
{
    if (zhashx_size (self->gone) >= s_max_gone)
        zhashx_purge (self->gone);
    zhashx_insert (self->gone, key, (void *) "");
}

void
execs_app_ended (execs_t *self)
{
    self->ended = true;
}

void
execs_lost (execs_t *self, int exec_id, const char *reason)
{
    exec_t *x = execs_find (self, exec_id);
    if (!x)
        return;
    if (x->peak_rss > 0)
        log_info ("executor %d: peak memory %lld MiB (%lld bytes)", exec_id,
                  (long long) (x->peak_rss >> 20), (long long) x->peak_rss);
    if (x->expected)
        s_expect (self, x, false);
    if (x->registered) {
        eventlog_t *el = work_eventlog (self->work);
        tlfeed_t *tl = work_tlfeed (self->work);
        evexec_lost_t lost = {el, tl, exec_id, reason, hearth_mono_us ()};
        int n = execres_remove (self->work, exec_id, x->worker, reason,
                                el || tl ? evexec_attempt_lost : NULL, &lost);
        if (self->ended) /* nothing runs again: the application is over */
            log_info ("executor %d stopped with the application (%s)%s",
                      exec_id, reason,
                      n > 0 ? ": its running tasks ended with it" : "");
        else
            hearth_log (strstr (reason, "released by dynamic allocation")
                            ? HEARTH_LOG_INFO
                            : HEARTH_LOG_WARN,
                        "executor %d lost (%s): %d tasks to run again", exec_id,
                        reason, n < 0 ? 0 : n);
        evexec_t info = execs_ev_info (x);
        evexec_removed (el, &info, reason, n < 0 ? 0 : n);
        tlfeed_exec (tl, &info, reason, eventlog_time_ms (el));
        execs_send_simple (self, x, HEARTH_CMD_STOP_EXECUTOR, reason);
        zhash_delete (self->by_key, x->key);
        s_note_gone (self, x->key);
        x->registered = false; /* for what the owner does meanwhile */
    }
    launch_forget (self->launch, exec_id);
    self->cbs.lost (self->cbs.arg, exec_id);
    zhashx_delete (self->by_id, hearth_intkey (exec_id));
    self->cbs.changed (self->cbs.arg);
}

/* ---- the ROUTER's handlers ---------------------------------------------- */

/* Who sent the message being handled: the handlers' sender's peer
   (libcore/dispatch.h). */
typedef struct {
    zframe_t *rid;               /* its routing id */
    const hearth_sender_t *peer; /* its real address */
    const char *key;             /* hex of rid, or NULL (no memory) */
    exec_t *x;                   /* the executor, once registered, or NULL */
} s_from_t;

/* Refuse a peer: ERROR code to it, and a log line naming its real
   address (the connection's, not what its message claims), once a
   minute per address however often it tries. */
static void
s_refuse (execs_t *self, zframe_t *rid, const hearth_sender_t *peer,
          const char *code, const char *why, const char *command)
{
    hearth_refusals_log (self->refusals,
                         peer->address[0] ? peer->address : "unknown address",
                         NULL, why);
    hearth_send_error (self->router, rid, code, why, command);
    hearth_loop_sent (self->loop, self->router);
}

/* Whether the sender has registered; if not, it is refused. */
static bool
s_registered (execs_t *self, const s_from_t *from, hearth_msg_t *msg)
{
    if (from->x)
        return true;
    if (from->key && zhashx_lookup (self->gone, from->key)) {
        /* sent before it heard it was lost (its last updates, a
           heartbeat): expected, and nothing to answer */
        log_debug ("a late %s from a lost executor: dropped",
                   hearth_cmd_name (msg->cmd));
        return false;
    }
    char why[128];
    snprintf (why, sizeof why,
              "%s from an executor that has not registered: send "
              "REGISTER_EXECUTOR first",
              hearth_cmd_name (msg->cmd));
    s_refuse (self, from->rid, from->peer, "not_registered", why,
              hearth_cmd_name (msg->cmd));
    return false;
}

static void
s_reply_registered (execs_t *self, exec_t *x)
{
    hearth_msg_t *msg = hearth_msg_new (HEARTH_CMD_REGISTERED_EXECUTOR);
    if (!msg)
        return;
    cJSON *b = msg->body;
    cJSON_AddNumberToObject (b, "heartbeat_interval_ms",
                             (double) self->hb_interval_ms);
    cJSON_AddNumberToObject (b, "heartbeat_liveness",
                             (double) self->hb_liveness);
    cJSON_AddNumberToObject (b, "max_result_bytes",
                             (double) self->max_result_bytes);
    /* the shuffle's bounds, from the application's settings */
    static const char *const sizes[][2] = {
        {"shuffle-memory", "shuffle_memory"},
        {"fetch-max-in-flight", "fetch_max_in_flight"},
        {"max-input-bytes", "max_input_bytes"},
        {"cache-memory", "cache_memory"}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        cJSON_AddNumberToObject (
            b, sizes[i][1],
            (double) hearth_conf_bytes (self->conf, sizes[i][0]));
    ship_add (self->ship, msg);
    cJSON_AddNumberToObject (b, "ship_start",
                             (double) shipspread_start (x->server));
    execs_send (self, x, &msg, NULL);
}

/* Where executor x is, for locality (issue 37): its host (told with it),
   its worker and its worker's labels ("KEY=VALUE"; rack=NAME makes its
   rack); a task preferring any of them goes there first. */
static void
s_places (execs_t *self, int exec_id, const exec_t *x)
{
    char worker[sizeof x->worker + 8];
    char labels[HEARTH_LABELS_MAX]
               [HEARTH_LABEL_KEY_MAX + HEARTH_LABEL_VALUE_MAX + 2];
    const char *places[HEARTH_LABELS_MAX + 2];
    char self_place[24];
    size_t n = s_place_names (x, self_place, worker, labels, places);
    const char *rack = hearth_json_str (x->labels, HEARTH_LABEL_RACK);
    if (hearth_taskset_set_executor_places (self->ts, exec_id, places, n, rack)
        < 0)
        log_warn ("executor %d: cannot note where it is (%s): its tasks' "
                  "preferences may be missed",
                  exec_id, strerror (errno));
}

/* Keep a REGISTER_EXECUTOR read before the application's id (s_early_t):
   true when kept; false when too many are (then it is refused). */
static bool
s_keep_early (execs_t *self, const s_from_t *from, const hearth_msg_t *msg)
{
    if (zlistx_size (self->early) >= s_max_early)
        return false;
    s_early_t *e = calloc (1, sizeof *e);
    hearth_msg_t *copy = e ? hearth_msg_new (msg->cmd) : NULL;
    cJSON *body = copy ? cJSON_Duplicate (msg->body, 1) : NULL;
    if (!body) {
        hearth_msg_destroy (&copy);
        free (e);
        return false;
    }
    cJSON_Delete (copy->body);
    copy->body = body;
    *e = (s_early_t){zframe_dup (from->rid), *from->peer, copy};
    zlistx_add_end (self->early, e);
    log_debug ("executor %d registered before the application's id: kept",
               (int) hearth_json_int (msg->body, "exec_id", -1));
    return true;
}

static void
s_register (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (!from->key) {
        s_registered (self, from, msg); /* no memory for its key */
        return;
    }
    const cJSON *b = msg->body;
    const char *app = hearth_json_str (b, "app_id");
    int exec_id = (int) hearth_json_int (b, "exec_id", -1);
    int cores = (int) hearth_json_int (b, "cores", 1);
    const char *token = hearth_json_str (b, "token");
    const char *cmd = "REGISTER_EXECUTOR";
    char why[256];
    if (!token || !hearth_keys_token_eq (token, self->token)) {
        snprintf (why, sizeof why,
                  "executor %d (says host %.64s, pid %lld) presented %s "
                  "token",
                  exec_id, hearth_json_str (b, "host"),
                  (long long) hearth_json_int (b, "pid", 0),
                  token ? "a wrong" : "no");
        return s_refuse (self, from->rid, from->peer, "refused", why, cmd);
    }
    if (!self->app_id[0] && s_keep_early (self, from, msg))
        return; /* handled once the application's id is known */
    if (strcmp (app, self->app_id) != 0) {
        snprintf (why, sizeof why, "executor of %s, this is %s", app,
                  self->app_id[0] ? self->app_id : "not registered yet");
        return s_refuse (self, from->rid, from->peer, "refused", why, cmd);
    }
    exec_t *x = execs_find (self, exec_id);
    if (x && x->registered) {
        if (strcmp (x->key, from->key) == 0)
            return s_reply_registered (self, x); /* a repeat */
        snprintf (why, sizeof why, "executor %d is already registered",
                  exec_id);
        return s_refuse (self, from->rid, from->peer, "refused", why, cmd);
    }
    if (!x && !(x = s_add (self, exec_id, cores, hearth_json_str (b, "host"))))
        return;
    x->rid = zframe_dup (from->rid);
    x->key = strdup (from->key);
    x->cores = cores;
    x->registered = true;
    if (x->expected) /* here now (its host may change below) */
        s_expect (self, x, false);
    /* its silence counts from now, not from the grant: one slower to
       start than the liveness window was dropped at the next tick */
    x->last_recv_ms = hearth_mono_ms ();
    x->server = shuffle_servers_intern (work_servers (self->work),
                                        hearth_json_str (b, "shuffle_url"),
                                        hearth_json_str (b, "shuffle_key"));
    shuffle_servers_set_worker (work_servers (self->work), x->server,
                                x->worker);
    shipspread_node (self->spread, x->server,
                     hearth_json_str (b, "shuffle_url"),
                     hearth_json_str (b, "shuffle_key"));
    snprintf (x->host, sizeof x->host, "%s", hearth_json_str (b, "host"));
    zhash_insert (self->by_key, from->key, x);
    hearth_taskset_add_executor_on (self->ts, exec_id, cores, x->host);
    s_places (self, exec_id, x);
    hearth_resources_clear (&x->resources); /* a known one registering */
    execres_register (self->ts, exec_id,
                      cJSON_GetObjectItemCaseSensitive (b, "resources"),
                      &x->resources);
    log_info ("executor %d registered from %s with %d cores", exec_id, x->host,
              cores);
    evexec_t info = execs_ev_info (x);
    x->added_ms = evexec_added (work_eventlog (self->work), &info);
    info.added_ms = x->added_ms;
    tlfeed_exec (work_tlfeed (self->work), &info, NULL, x->added_ms);
    s_reply_registered (self, x);
}

/* The executor's own peak memory so far (HEARTBEAT, STATUS_UPDATE):
   the largest figure told is kept, its worker's (execs_set_peak_rss)
   included. */
static void
s_note_peak (exec_t *x, const hearth_msg_t *msg)
{
    int64_t peak = hearth_json_int (msg->body, "peak_rss_bytes", -1);
    if (peak > x->peak_rss)
        x->peak_rss = peak;
    x->cache_bytes = hearth_json_int (msg->body, "cache_bytes", x->cache_bytes);
}

static void
s_status (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (!s_registered (self, from, msg))
        return;
    s_note_peak (from->x, msg);
    launch_status (self->launch, from->x->exec_id, from->x->server,
                   from->x->host, msg);
}

/* An attempt asks to commit its output: answered at once. */
static void
s_ask_commit (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (s_registered (self, from, msg))
        execs_answer_commit (self, from->x->exec_id,
                             (uint64_t) hearth_json_int (msg->body, "tid", 0),
                             (int) hearth_json_int (msg->body, "attempt", 0));
}

/* The sign of life s_dispatch has counted, the peak, the batches the
   executor has handled. */
static void
s_heartbeat (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (!s_registered (self, from, msg))
        return;
    s_note_peak (from->x, msg);
    launch_handled (self->launch, from->x->exec_id, msg);
}

/* An ERROR: a LAUNCH_TASKS refused ends its batch (launch.h); one that
   cannot be told apart from those the executor runs drops the executor,
   its attempts run again elsewhere (neither run twice nor wait). */
static void
s_error (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (!s_registered (self, from, msg))
        return;
    int exec_id = from->x->exec_id;
    launch_error_t what = launch_error (self->launch, exec_id, msg);
    if (what == LAUNCH_ERROR_OTHER)
        log_warn ("executor %d says %s: %s", exec_id,
                  hearth_json_str (msg->body, "code"),
                  hearth_json_str (msg->body, "message"));
    else if (what == LAUNCH_ERROR_UNKNOWN) {
        char why[HEARTH_ERROR_TEXT_MAX + 128];
        snprintf (why, sizeof why,
                  "it refused a launch without saying which: %s",
                  hearth_json_str (msg->body, "message"));
        self->cbs.silent (self->cbs.arg, exec_id, why);
        execs_lost (self, exec_id, why);
    }
}

/* A chunk of a shipped file or library (ship.h), or the other nodes
   that hold it (shipspread.h), for a registered executor only: the
   token it registered with is what admits it. */
static void
s_fetch_file (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (!s_registered (self, from, msg))
        return;
    hearth_msg_t *reply = shipspread_answer (self->spread, self->ship,
                                             msg->body, from->x->server);
    if (!reply)
        log_error ("out of memory answering executor %d's FETCH_FILE",
                   from->x->exec_id);
    else if (reply->cmd == HEARTH_CMD_ERROR)
        log_warn ("executor %d: FETCH_FILE refused: %s", from->x->exec_id,
                  hearth_json_str (reply->body, "message"));
    else if (reply->cmd == HEARTH_CMD_FILE_CHUNK)
        self->turn_chunk_bytes += HEARTH_FILE_CHUNK_BYTES;
    if (reply)
        execs_send (self, from->x, &reply, NULL);
}

/* The executor's node holds a shipped file whole (shipspread.h). */
static void
s_file_held (void *arg, const hearth_from_t *sender, hearth_msg_t *msg)
{
    execs_t *self = arg;
    const s_from_t *from = sender->peer;
    if (s_registered (self, from, msg))
        shipspread_held (self->spread, hearth_json_str (msg->body, "hash"),
                         from->x->server);
}

/* The executors' commands.  Each handler but REGISTER_EXECUTOR's serves
   only a registered executor (s_registered): this table is the
   authorization of the driver's ROUTER (docs/security.md, "The driver's
   executor socket"). */
static const hearth_handler_t s_handlers[] = {
    {HEARTH_CMD_HEARTBEAT, s_heartbeat},
    {HEARTH_CMD_REGISTER_EXECUTOR, s_register},
    {HEARTH_CMD_STATUS_UPDATE, s_status},
    {HEARTH_CMD_ASK_COMMIT, s_ask_commit},
    {HEARTH_CMD_FETCH_FILE, s_fetch_file},
    {HEARTH_CMD_FILE_HELD, s_file_held},
    {HEARTH_CMD_ERROR, s_error},
};

static void
s_handle (execs_t *self, const s_from_t *from, hearth_msg_t *msg)
{
    hearth_from_t sender = {.rid = from->rid, .key = "", .peer = (void *) from};
    if (hearth_dispatch (HEARTH_HANDLERS (s_handlers), self, &sender, msg) == 0)
        return;
    if (s_registered (self, from, msg))
        log_warn ("executor %d sent %s, ignored", from->x->exec_id,
                  hearth_cmd_name (msg->cmd));
}

static void
s_dispatch (execs_t *self, zframe_t *rid, const hearth_sender_t *peer,
            hearth_msg_t *msg)
{
    char *key = zframe_strhex (rid);
    s_from_t from = {.rid = rid,
                     .peer = peer,
                     .key = key,
                     .x = key ? zhash_lookup (self->by_key, key) : NULL};
    if (from.x)
        from.x->last_recv_ms = hearth_mono_ms (); /* a sign of life */
    s_handle (self, &from, msg);
    free (key);
}

static int
s_on_router (hearth_loop_t *loop, zsock_t *sock, void *arg)
{
    (void) loop;
    execs_t *self = arg;
    /* The peer's address, for refusals: messages claim a host, the
       connection tells the real one. */
    hearth_sender_t peer;
    int got = 0;
    self->turn_chunk_bytes = 0;
    while (got < s_max_drain
           && self->turn_chunk_bytes < s_max_turn_chunk_bytes) {
        zframe_t *rid = NULL;
        hearth_error_t err;
        bool none;
        hearth_msg_t *msg =
            hearth_msg_try_recv_from (sock, &rid, &peer, &none, &err);
        if (none)
            break;
        if (!msg && hearth_recv_broken (&err)) {
            log_error ("the executors' socket: %s", err.text);
            return -1;
        }
        got++;
        if (msg)
            s_dispatch (self, rid, &peer, msg);
        else if (rid) {
            char why[HEARTH_ERROR_TEXT_MAX + 32];
            snprintf (why, sizeof why, "bad message from an executor: %s",
                      err.text);
            s_refuse (self, rid, &peer, err.code, why, NULL);
        }
        hearth_msg_destroy (&msg);
        zframe_destroy (&rid);
    }
    if (got)
        self->cbs.changed (self->cbs.arg);
    /* stopped early: call again */
    return got == s_max_drain
           || self->turn_chunk_bytes >= s_max_turn_chunk_bytes;
}

/* ---- the tick ---------------------------------------------------------- */

void
execs_tick (execs_t *self)
{
    int64_t now = hearth_mono_ms ();
    int64_t deadline = self->hb_liveness * self->hb_interval_ms;
    int silent[s_max_silent];
    size_t nsilent = 0;
    for (exec_t *x = zhashx_first (self->by_id); x;
         x = zhashx_next (self->by_id)) {
        if (!x->registered)
            continue;
        if (now - x->last_recv_ms > deadline && nsilent < s_max_silent)
            silent[nsilent++] = x->exec_id;
        else if (now - x->last_send_ms >= self->hb_interval_ms)
            execs_send_simple (self, x, HEARTH_CMD_HEARTBEAT, NULL);
    }
    for (size_t i = 0; i < nsilent; i++) {
        /* Hung or cut off: the master kills it, so its cores come back. */
        self->cbs.silent (self->cbs.arg, silent[i],
                          "no heartbeat at the driver");
        execs_lost (self, silent[i], "no heartbeat");
    }
    if (launch_tick (self->launch)) /* batches that could not be sent */
        self->cbs.changed (self->cbs.arg);
}
