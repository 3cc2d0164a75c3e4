/*  webprom.h - the web server's own metrics, for the /metrics of every
    daemon that serves pages (the master's and the workers'): requests
    answered, refused (401, 421, 503), and the bytes the replies being
    sent hold (docs/operations.md, "Metrics"). */
#ifndef HEARTH_WEBPROM_H
#define HEARTH_WEBPROM_H

#include "libcore/prom.h"
#include "libcore/web.h"

/* Add the families of web's counters (borrowed) to p. */
void hearth_web_prom (hearth_prom_t *p, const hearth_web_t *web);

#endif
