/*  web.c - the HTTP server of the daemons' pages; see web.h. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libcore/log.h"
#include "libcore/loop.h"
#include "libcore/mhdlib.h"
#include "libcore/refusals.h"
#include "libcore/web.h"
#include "libcore/web_int.h"
#include "libcore/webauth.h"

/* Connections open at once; past it new ones wait in the backlog. */
static const unsigned s_max_connections = 256;
/* Connections from one client address, unless configured. */
static const unsigned s_client_connections = 32;
/* Bytes the replies being sent may hold in all, unless configured. */
static const size_t s_reply_memory_bytes = (size_t) 64 << 20;
/* Seconds a connection may stay idle (or trickle) before it is closed. */
static const unsigned s_idle_timeout_s = 10;
/* Memory of one connection: its request's headers must fit (else 431). */
static const size_t s_conn_memory_bytes = 32 * 1024;
/* The cookie that carries the token, and what its Set-Cookie adds. */
#define S_COOKIE "hearth_token"
#define S_COOKIE_ATTRS "; HttpOnly; SameSite=Strict; Path=/"
_Static_assert(sizeof S_COOKIE "=" S_COOKIE_ATTRS - 1 + HEARTH_WEBAUTH_TOKEN_MAX
                   < HEARTH_WEB_HEADER_VALUE_MAX,
               "a Set-Cookie with the longest token must fit a reply header");

/* libmicrohttpd's functions, loaded by the first server (mhdlib.h). */
static const hearth_mhd_t *M;

struct hearth_web {
    struct MHD_Daemon *mhd;           /* the server (owned) */
    hearth_loop_t *loop;              /* the daemon's reactor (borrowed) */
    int epoll_fd;                     /* libmicrohttpd's one fd */
    int timer_id;                     /* the pending one-shot timer, or -1 */
    int listen_fd;                    /* the bound socket (owned) */
    int port;                         /* the port bound */
    char url[300];                    /* http://HOST:PORT */
    hearth_webauth_t auth;            /* who is admitted (webauth.h) */
    const hearth_web_route_t *routes; /* the table (borrowed) */
    void *arg;                        /* for the handlers */
    hearth_refusals_t *refusals;      /* 401s, one log line a minute */
    hearth_web_stats_t stats;         /* counters, and the bytes held */
    unsigned client_connections;      /* most from one address */
    size_t reply_memory;              /* most bytes replies may hold */
};

/* A reply's body while libmicrohttpd sends it: counted in web's held
   bytes until the response is destroyed (s_release). */
typedef struct {
    hearth_web_t *web; /* whose count (borrowed) */
    char *body;        /* the bytes (owned) */
    size_t len;        /* how many */
} s_held_t;

/* A POST to a route that takes one, while its body arrives: the
   request's con_cls until it is answered (then the server itself). */
typedef struct {
    const hearth_web_route_t *route; /* the route admitted */
    hearth_web_reply_t rep;          /* the reply begun (its headers) */
    char body[HEARTH_WEB_FORM_MAX];  /* the bytes so far */
    size_t len;                      /* how many */
    bool too_big;                    /* more came: answered 413 */
} s_post_t;

/* --- answering a request ------------------------------------------------ */

/* Log a refusal of req (once a minute per client and about). */
static void
s_refuse (hearth_web_t *self, const hearth_web_request_t *req,
          const char *about, const char *why)
{
    char client[64];
    hearth_web_client (req, client, sizeof client);
    hearth_refusals_log (self->refusals, client, about, why);
}

static const hearth_web_route_t *
s_route (const hearth_web_t *self, const char *path)
{
    for (const hearth_web_route_t *r = self->routes; r->path; r++)
        if (r->prefix ? strncmp (path, r->path, strlen (r->path)) == 0
                      : strcmp (path, r->path) == 0)
            return r;
    return NULL;
}

/* How a client gets the token, for the 401 and the log line at start:
   "" when there is none. */
static const char *
s_token_how (const hearth_webauth_t *auth)
{
    switch (auth->source) {
    case HEARTH_WEBAUTH_FILE:
        return "the one of the server's --web-token-file";
    case HEARTH_WEBAUTH_COOKIE:
        return "the server's user's, from its local cookie: 'hearth-admin "
               "web-url [URL]', run as that user, prints the address with "
               "it (docs/security.md, \"Web pages\")";
    default:
        return "";
    }
}

/* A POST's body over HEARTH_WEB_FORM_MAX: 413. */
static void
s_too_large (hearth_web_t *self, const hearth_web_request_t *req,
             hearth_web_reply_t *rep)
{
    s_refuse (self, req, "form-size", "web POST over its size");
    hearth_web_reply_text (rep, 413,
                           "413 content too large: a form here is at most "
                           "%d bytes\n",
                           HEARTH_WEB_FORM_MAX);
}

/* A POST's headers, before its body is read: a form, not too long.
   route, or NULL with rep the refusal. */
static const hearth_web_route_t *
s_post_admit (hearth_web_t *self, const hearth_web_request_t *req,
              hearth_web_reply_t *rep, const hearth_web_route_t *route)
{
    static const char form[] = "application/x-www-form-urlencoded";
    const char *type = hearth_web_header (req, MHD_HTTP_HEADER_CONTENT_TYPE);
    const char *length =
        hearth_web_header (req, MHD_HTTP_HEADER_CONTENT_LENGTH);
    if (!type || strncasecmp (type, form, sizeof form - 1) != 0
        || !strchr ("; ", type[sizeof form - 1])) {
        s_refuse (self, req, "form-type", "web POST that is not a form");
        hearth_web_reply_text (rep, 415,
                               "415 unsupported media type: a POST here is "
                               "a form (%s)\n",
                               form);
        return NULL;
    }
    if (length && strtoull (length, NULL, 10) > HEARTH_WEB_FORM_MAX) {
        s_too_large (self, req, rep);
        return NULL;
    }
    return route;
}

/* Admit one request: its Host, its token, its method on its route.
   The route, or NULL with rep the refusal. */
static const hearth_web_route_t *
s_admit (hearth_web_t *self, const hearth_web_request_t *req,
         hearth_web_reply_t *rep)
{
    if (!hearth_webauth_host_ok (
            &self->auth, M->lookup_connection_value (req->conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_HOST))) {
        s_refuse (self, req, "host",
                  "web request for another Host than loopback's");
        self->stats.misdirected++;
        hearth_web_reply_text (rep, 421,
                               "421 misdirected request: this server is "
                               "bound to loopback and answers only for "
                               "Host 127.0.0.1, localhost, [::1] or %s "
                               "(any port)\n",
                               self->auth.host);
        return NULL;
    }
    int admitted = hearth_webauth_check (
        &self->auth,
        M->lookup_connection_value (req->conn, MHD_HEADER_KIND,
                                    "Authorization"),
        M->lookup_connection_value (req->conn, MHD_COOKIE_KIND, S_COOKIE),
        M->lookup_connection_value (req->conn, MHD_GET_ARGUMENT_KIND, "token"));
    if (!admitted) {
        s_refuse (self, req, "web", "web request without the token");
        self->stats.unauthorized++;
        hearth_web_reply_header (rep, "WWW-Authenticate", "Bearer");
        hearth_web_reply_text (rep, 401,
                               "401 unauthorized: this server needs its "
                               "token (Authorization: Bearer, the "
                               "hearth_token cookie or ?token=): %s\n",
                               s_token_how (&self->auth));
        return NULL;
    }
    if (admitted == 2) {
        char cookie[HEARTH_WEB_HEADER_VALUE_MAX];
        snprintf (cookie, sizeof cookie, S_COOKIE "=%s" S_COOKIE_ATTRS,
                  self->auth.token);
        hearth_web_reply_header (rep, "Set-Cookie", cookie);
    }
    const hearth_web_route_t *route = s_route (self, req->path);
    bool post = route && route->post && strcmp (req->method, "POST") == 0;
    if (!post && strcmp (req->method, "GET") != 0
        && strcmp (req->method, "HEAD") != 0) {
        self->stats.bad_method++;
        hearth_web_reply_header (rep, "Allow", "GET, HEAD");
        hearth_web_reply_text (rep, 405, "405 method not allowed: %.32s\n",
                               req->method);
        return NULL;
    }
    if (!route) {
        self->stats.not_found++;
        hearth_web_reply_text (rep, 404, "404 not found\n");
        return NULL;
    }
    return post ? s_post_admit (self, req, rep, route) : route;
}

/* libmicrohttpd is done with a reply's body. */
static void
s_release (void *cls)
{
    s_held_t *h = cls;
    h->web->stats.held -= h->len;
    free (h->body);
    free (h);
}

/* A response for rep's body, which it takes (counted as held while it is
   sent), or NULL. */
static struct MHD_Response *
s_response (hearth_web_t *self, hearth_web_reply_t *rep)
{
    if (!rep->body)
        return M->create_response_from_buffer (0, (void *) "",
                                               MHD_RESPMEM_PERSISTENT);
    s_held_t *h = malloc (sizeof *h);
    if (!h) {
        free (rep->body);
        rep->body = NULL;
        return NULL;
    }
    *h = (s_held_t){self, rep->body, rep->len};
    rep->body = NULL;
    self->stats.held += h->len;
    struct MHD_Response *resp =
        M->create_response_from_buffer_with_free_callback_cls (h->len, h->body,
                                                               s_release, h);
    if (!resp)
        s_release (h);
    return resp;
}

static enum MHD_Result
s_queue (hearth_web_t *self, struct MHD_Connection *conn,
         hearth_web_reply_t *rep)
{
    struct MHD_Response *resp = s_response (self, rep);
    if (!resp)
        return MHD_NO; /* closes the connection */
    if (rep->type)
        M->add_response_header (resp, MHD_HTTP_HEADER_CONTENT_TYPE, rep->type);
    M->add_response_header (resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
    M->add_response_header (resp, "X-Content-Type-Options", "nosniff");
    /* Inline CSS and JS only, data fetched from this server: nothing else
       runs, no other site may frame the pages, and their forms post to
       this server only. */
    M->add_response_header (resp, "Content-Security-Policy",
                            "default-src 'self' 'unsafe-inline' data:; "
                            "frame-ancestors 'none'; form-action 'self'");
    bool policy = false; /* the reply sets its own Referrer-Policy */
    for (size_t i = 0; i < rep->nheaders; i++) {
        M->add_response_header (resp, rep->headers[i].name,
                                rep->headers[i].value);
        policy |= strcasecmp (rep->headers[i].name, "Referrer-Policy") == 0;
    }
    /* a page opened with ?token= sends it to no link's server (a kill's
       confirmation says same-origin: under no-referrer a browser sends
       its form as from Origin: null, which the kill must refuse) */
    if (!policy)
        M->add_response_header (resp, "Referrer-Policy", "no-referrer");
    enum MHD_Result rc = M->queue_response (conn, (unsigned) rep->status, resp);
    M->destroy_response (resp);
    return rc;
}

/* rep replaced by a 503 when its body would take the replies being sent
   past reply_memory: clients that read slowly, or not at all, cannot
   make the daemon hold more.  A reply when none is held is always sent,
   whatever its size. */
static void
s_bound (hearth_web_t *self, const hearth_web_request_t *req,
         hearth_web_reply_t *rep)
{
    size_t held = (size_t) self->stats.held;
    if (!rep->body || held == 0 || held + rep->len <= self->reply_memory)
        return;
    s_refuse (self, req, "busy",
              "web reply held back: the replies being sent hold "
              "--web-reply-memory already");
    self->stats.busy++;
    rep->nheaders = 0;
    hearth_web_reply_header (rep, "Retry-After", "1");
    hearth_web_reply_text (rep, 503,
                           "503 busy: replies of %zu bytes wait for clients "
                           "that read slowly (--web-reply-memory %zu); try "
                           "again\n",
                           held, self->reply_memory);
}

/* Answer req by route (NULL: rep is the answer already). */
static enum MHD_Result
s_reply (hearth_web_t *self, const hearth_web_request_t *req,
         const hearth_web_route_t *route, hearth_web_reply_t *rep)
{
    if (route)
        route->fn (self->arg, req, rep);
    s_bound (self, req, rep);
    self->stats.requests++;
    self->stats.bytes += rep->len;
    return s_queue (self, req->conn, rep);
}

/* A POST's body: *size more bytes at data, or, when *size is 0, the end
   (then it is answered, and con_cls is the server's again). */
static enum MHD_Result
s_post_body (hearth_web_t *self, hearth_web_request_t *req, void **con_cls,
             const char *data, size_t *size)
{
    s_post_t *p = *con_cls;
    if (*size) {
        if (p->len + *size > sizeof p->body)
            p->too_big = true; /* the rest is read and dropped */
        else
            memcpy (p->body + p->len, data, *size);
        p->len += p->too_big ? 0 : *size;
        *size = 0;
        return MHD_YES;
    }
    *con_cls = self;
    req->form = p->body;
    req->form_len = p->len;
    const hearth_web_route_t *route = p->route;
    if (p->too_big) {
        s_too_large (self, req, &p->rep);
        route = NULL;
    }
    enum MHD_Result rc = s_reply (self, req, route, &p->rep);
    free (p);
    return rc;
}

/* libmicrohttpd's access handler: a request is answered on its first
   call (its body, which only methods refused with 405 carry, dropped),
   but a POST a route takes, which is answered once its body is in. */
static enum MHD_Result
s_access (void *cls, struct MHD_Connection *conn, const char *url,
          const char *method, const char *version, const char *upload_data,
          size_t *upload_data_size, void **con_cls)
{
    (void) version;
    hearth_web_t *self = cls;
    if (*con_cls == self) { /* answered: the rest of its body */
        *upload_data_size = 0;
        return MHD_YES;
    }
    hearth_web_request_t req = {.conn = conn,
                                .method = method,
                                .path = url,
                                .auth = &self->auth,
                                .refusals = self->refusals,
                                .forbidden = &self->stats.forbidden};
    if (*con_cls)
        return s_post_body (self, &req, con_cls, upload_data, upload_data_size);
    hearth_web_reply_t rep = {.status = 200};
    const hearth_web_route_t *route = s_admit (self, &req, &rep);
    if (route && strcmp (method, "POST") == 0) {
        s_post_t *p = malloc (sizeof *p);
        if (!p)
            return MHD_NO; /* closes the connection */
        *p = (s_post_t){.route = route, .rep = rep};
        *con_cls = p;
        return MHD_YES;
    }
    *con_cls = self;
    return s_reply (self, &req, route, &rep);
}

/* A request is over (answered, or its connection closed first): a POST
   still reading its body is freed. */
static void
s_completed (void *cls, struct MHD_Connection *conn, void **con_cls,
             enum MHD_RequestTerminationCode toe)
{
    (void) conn;
    (void) toe;
    if (*con_cls && *con_cls != cls)
        free (*con_cls);
    *con_cls = NULL;
}

/* libmicrohttpd's own messages (a malformed request, no memory, a
   connection closed at a limit: said at WARN once a minute). */
static void
s_mhd_log (void *cls, const char *fmt, va_list ap)
{
    hearth_web_t *self = cls;
    char line[512];
    vsnprintf (line, sizeof line, fmt, ap);
    size_t n = strlen (line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
    log_debug ("web: %s", line);
    if (strstr (line, "connection limit")) {
        char why[160];
        snprintf (why, sizeof why,
                  "a web client reached the connection limit (%u per "
                  "address, %u in all): connection closed",
                  self->client_connections, s_max_connections);
        hearth_refusals_log (self->refusals, "web client", "limit", why);
    }
}

/* --- the loop ----------------------------------------------------------- */

static int s_on_timer (hearth_loop_t *loop, int timer_id, void *arg);

/* Run what is due, then set the timer to libmicrohttpd's next deadline. */
static void
s_run (hearth_web_t *self)
{
    M->run (self->mhd);
    if (self->timer_id >= 0)
        hearth_loop_timer_end (self->loop, self->timer_id);
    self->timer_id = -1;
    MHD_UNSIGNED_LONG_LONG ms;
    if (M->get_timeout (self->mhd, &ms) == MHD_YES)
        self->timer_id = hearth_loop_timer (
            self->loop, ms < 1 ? 1 : (size_t) ms, 1, s_on_timer, self);
}

static int
s_on_timer (hearth_loop_t *loop, int timer_id, void *arg)
{
    (void) loop;
    hearth_web_t *self = arg;
    if (timer_id == self->timer_id)
        self->timer_id = -1; /* a one-shot: the loop drops it */
    s_run (self);
    return 0;
}

static int
s_on_ready (hearth_loop_t *loop, int fd, void *arg)
{
    (void) loop;
    (void) fd;
    s_run (arg);
    return 0;
}

/* --- start-up ----------------------------------------------------------- */

/* Bind host:port (a listening socket, close-on-exec: the daemon's
   children must not hold it).  -1 with errno on failure. */
static int
s_listen (const char *host, int port)
{
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_PASSIVE};
    struct addrinfo *ai = NULL;
    char service[16];
    snprintf (service, sizeof service, "%d", port);
    int rc = getaddrinfo (host, service, &hints, &ai);
    if (rc != 0) {
        errno = rc == EAI_SYSTEM ? errno : EADDRNOTAVAIL;
        return -1;
    }
    int fd =
        socket (ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                ai->ai_protocol);
    int one = 1;
    if (fd >= 0
        && (setsockopt (fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) < 0
            || bind (fd, ai->ai_addr, ai->ai_addrlen) < 0
            || listen (fd, 64) < 0)) {
        int saved = errno;
        close (fd);
        errno = saved;
        fd = -1;
    }
    freeaddrinfo (ai);
    return fd;
}

/* Bind the first free port of cfg's range. */
static int
s_bind (hearth_web_t *self, const hearth_web_config_t *cfg, const char *host,
        hearth_error_t *err)
{
    int tries = cfg->tries > 0 ? cfg->tries : HEARTH_WEB_PORT_TRIES;
    int last = cfg->port + tries - 1 > 65535 ? 65535 : cfg->port + tries - 1;
    for (int port = cfg->port; port <= last; port++) {
        self->listen_fd = s_listen (host, port);
        if (self->listen_fd >= 0) {
            self->port = port;
            return 0;
        }
        if (errno != EADDRINUSE)
            return hearth_errprintf (err,
                                     "cannot bind the web server to %s:%d: %s",
                                     host, port, strerror (errno));
    }
    hearth_errprintf (err,
                      "cannot bind the web server to %s: ports %d to %d "
                      "are all taken",
                      host, cfg->port, last);
    errno = EADDRINUSE;
    return -1;
}

/* The URL's host: the bound address, or for a wildcard the advertised
   host (or the hostname). */
static void
s_make_url (hearth_web_t *self, const hearth_web_config_t *cfg,
            const char *host)
{
    char name[256];
    bool wildcard = strcmp (host, "0.0.0.0") == 0 || strcmp (host, "::") == 0
                    || strcmp (host, "*") == 0;
    if (wildcard && cfg->advertise && strcmp (cfg->advertise, "0.0.0.0") != 0)
        host = cfg->advertise;
    else if (wildcard) {
        host = gethostname (name, sizeof name) == 0 ? name : "127.0.0.1";
        name[sizeof name - 1] = '\0';
    }
    bool v6 = strchr (host, ':') != NULL;
    snprintf (self->url, sizeof self->url,
              v6 ? "http://[%s]:%d" : "http://%s:%d", host, self->port);
}

static int
s_start (hearth_web_t *self, hearth_error_t *err)
{
    unsigned flags = MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
    self->mhd = M->start_daemon (
        flags, 0, NULL, NULL, s_access, self, MHD_OPTION_LISTEN_SOCKET,
        self->listen_fd, MHD_OPTION_CONNECTION_LIMIT, s_max_connections,
        MHD_OPTION_PER_IP_CONNECTION_LIMIT, self->client_connections,
        MHD_OPTION_CONNECTION_TIMEOUT, s_idle_timeout_s,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, s_conn_memory_bytes,
        MHD_OPTION_NOTIFY_COMPLETED, s_completed, self,
        MHD_OPTION_EXTERNAL_LOGGER, s_mhd_log, self, MHD_OPTION_END);
    if (!self->mhd)
        return hearth_errprintf (err, "cannot start the web server: %s",
                                 strerror (errno));
    self->listen_fd = -1; /* the daemon's now: its stop closes it */
    const union MHD_DaemonInfo *info =
        M->get_daemon_info (self->mhd, MHD_DAEMON_INFO_EPOLL_FD);
    if (!info || info->epoll_fd < 0)
        return hearth_errprintf (err, "the web server has no epoll fd");
    self->epoll_fd = info->epoll_fd;
    if (hearth_loop_fd (self->loop, self->epoll_fd, s_on_ready, self) < 0)
        return hearth_errprintf (err, "cannot poll the web server");
    s_run (self);
    return 0;
}

hearth_web_t *
hearth_web_new (hearth_loop_t *loop, const hearth_web_config_t *cfg,
                const hearth_web_route_t *routes, void *arg,
                hearth_error_t *err)
{
    assert (loop && cfg && routes);
    const char *host = cfg->host ? cfg->host : "127.0.0.1";
    hearth_web_t *self = calloc (1, sizeof *self);
    if (!self || !(self->refusals = hearth_refusals_new ())) {
        free (self);
        hearth_errprintf (err, "out of memory");
        errno = ENOMEM;
        return NULL;
    }
    self->loop = loop;
    self->routes = routes;
    self->arg = arg;
    self->client_connections = cfg->client_connections ? cfg->client_connections
                                                       : s_client_connections;
    self->reply_memory =
        cfg->reply_memory ? cfg->reply_memory : s_reply_memory_bytes;
    self->timer_id = -1;
    self->listen_fd = -1;
    self->epoll_fd = -1;
    if (cfg->port < 1 || cfg->port > 65535) {
        hearth_errprintf (err, "bad web port %d", cfg->port);
        errno = EINVAL;
        goto error;
    }
    if (!(M = hearth_mhd (err))
        || hearth_webauth_setup (&self->auth, host, cfg->token_file,
                                 cfg->insecure, err)
               < 0
        || s_bind (self, cfg, host, err) < 0)
        goto error;
    s_make_url (self, cfg, host);
    if (s_start (self, err) < 0)
        goto error;
    log_info ("%s web pages at %s%s%s", cfg->who ? cfg->who : "serving",
              self->url, self->auth.open ? "" : " (token required): ",
              s_token_how (&self->auth));
    return self;
error:
    hearth_web_destroy (&self);
    return NULL;
}

int
hearth_web_start (hearth_loop_t *loop, const hearth_conf_t *conf,
                  const char *who, const char *advertise,
                  const hearth_web_route_t *routes, void *arg,
                  hearth_web_t **out, hearth_error_t *err)
{
    *out = NULL;
    int port = (int) hearth_conf_int (conf, "web-port");
    if (port == 0) {
        log_info ("web pages off (--web-port 0)");
        return 0;
    }
    hearth_web_config_t cfg = {
        .host = hearth_conf_str (conf, "web-host"),
        .port = port,
        .token_file = hearth_conf_str (conf, "web-token-file"),
        .insecure = hearth_conf_bool (conf, "insecure"),
        .advertise = advertise,
        .who = who,
        .client_connections =
            (unsigned) hearth_conf_int (conf, "web-client-connections"),
        .reply_memory = (size_t) hearth_conf_bytes (conf, "web-reply-memory"),
    };
    hearth_error_t werr;
    if ((*out = hearth_web_new (loop, &cfg, routes, arg, &werr)))
        return 0;
    /* the default port's range taken, or no cookie to take a token
       from: no pages, rather than no daemon */
    if ((errno == EADDRINUSE || errno == ENOKEY)
        && hearth_conf_source (conf, "web-port") == HEARTH_SRC_DEFAULT) {
        log_warn ("%s: no web pages%s", werr.text,
                  errno == EADDRINUSE ? " (set --web-port)" : "");
        return 0;
    }
    return hearth_errprintf (err, "%s", werr.text);
}

void
hearth_web_destroy (hearth_web_t **self_p)
{
    if (!self_p || !*self_p)
        return;
    int saved = errno;
    hearth_web_t *self = *self_p;
    if (self->epoll_fd >= 0)
        hearth_loop_fd_end (self->loop, self->epoll_fd);
    if (self->timer_id >= 0)
        hearth_loop_timer_end (self->loop, self->timer_id);
    if (self->mhd)
        M->stop_daemon (self->mhd);
    if (self->listen_fd >= 0)
        close (self->listen_fd); /* bound, but no daemon took it */
    hearth_refusals_destroy (&self->refusals);
    hearth_webauth_clear (&self->auth);
    free (self);
    *self_p = NULL;
    errno = saved;
}

const char *
hearth_web_url (const hearth_web_t *self)
{
    return self->url;
}

int
hearth_web_port (const hearth_web_t *self)
{
    return self->port;
}

hearth_web_stats_t
hearth_web_stats (const hearth_web_t *self)
{
    return self->stats;
}
