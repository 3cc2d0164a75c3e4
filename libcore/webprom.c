/*  webprom.c - the web server's own metrics; see webprom.h. */
#include "config.h"

#include "libcore/webprom.h"

void
hearth_web_prom (hearth_prom_t *p, const hearth_web_t *web)
{
    hearth_web_stats_t s = hearth_web_stats (web);
    hearth_prom_family (p, "hearth_web_requests_total", "counter",
                        "Web requests answered (this one not yet counted).");
    hearth_prom_sample (p, "hearth_web_requests_total", NULL, NULL,
                        (double) s.requests);
    hearth_prom_family (p, "hearth_web_unauthorized_total", "counter",
                        "Web requests answered 401 (no or a wrong token).");
    hearth_prom_sample (p, "hearth_web_unauthorized_total", NULL, NULL,
                        (double) s.unauthorized);
    hearth_prom_family (p, "hearth_web_refused_total", "counter",
                        "Web requests refused: 421 for a Host that is not "
                        "loopback's (host), 503 for --web-reply-memory "
                        "reached (busy), 403 for an action's form without "
                        "its anti-forgery value or from another origin "
                        "(forbidden).");
    hearth_prom_sample (p, "hearth_web_refused_total", "reason", "host",
                        (double) s.misdirected);
    hearth_prom_sample (p, "hearth_web_refused_total", "reason", "busy",
                        (double) s.busy);
    hearth_prom_sample (p, "hearth_web_refused_total", "reason", "forbidden",
                        (double) s.forbidden);
    hearth_prom_family (p, "hearth_web_reply_bytes", "gauge",
                        "Bytes the web replies being sent hold now.");
    hearth_prom_sample (p, "hearth_web_reply_bytes", NULL, NULL,
                        (double) s.held);
}
