/*  masters.h - a list of master URLs ("tcp://m1:7077,tcp://m2:7077"), and
    which of them a client follows (issue 17, high-availability.md
    "Clients").

    Every program that takes a master takes such a list: --master,
    HEARTH_MASTER, libhearth's "master", job files.  hearth_masters_parse
    checks it the one way they all share: comma-separated elements, each
    a tcp://HOST:PORT (blanks around an element allowed), at most
    HEARTH_MASTERS_MAX of them, no element twice; an error names the bad
    element and its place.  A list of one is a plain --master.

    The same object keeps a long-lived link's position: the URL it uses
    now, moved to the next one (after silence, or a standby that names no
    leader usable here) or to the leader a standby names when that leader
    is one of the list (a URL outside it is ignored: whoever can write the
    election's nodes in ZooKeeper, or answers as a standby, must not be
    able to send clients anywhere; security.md), and the fencing of the
    protocol (section 4): the highest epoch seen from a master, below
    which messages are dropped.  Nothing here reads a clock or a socket.
*/
#ifndef HEARTH_MASTERS_H
#define HEARTH_MASTERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "libcore/error.h"
#include "libcore/loglimit.h"
#include "libcore/proto.h"

/* Most URLs in one list: masters are a handful, a longer list is a
   mistake (a pasted worker list). */
#define HEARTH_MASTERS_MAX 16
/* Longest URL of one master, in bytes. */
#define HEARTH_MASTER_URL_MAX 300

typedef struct hearth_masters hearth_masters_t;

/* Parse list (borrowed).  NULL with err set (naming the bad element) when
   it is not a valid list, or on no memory. */
hearth_masters_t *hearth_masters_parse (const char *list, hearth_error_t *err);

/* Check list without keeping it.  Returns 0, or -1 with err. */
int hearth_masters_check (const char *list, hearth_error_t *err);

/* Free it.  Accepts NULL and a NULL *self_p; nulls the pointer; keeps
   errno. */
void hearth_masters_destroy (hearth_masters_t **self_p);

/* How many URLs the list has (at least 1). */
size_t hearth_masters_count (const hearth_masters_t *self);

/* URL i of the list (borrowed), or NULL when out of range. */
const char *hearth_masters_url (const hearth_masters_t *self, size_t i);

/* The list as one string, "tcp://a:1, tcp://b:2" (borrowed): for the
   messages that name every URL tried. */
const char *hearth_masters_text (const hearth_masters_t *self);

/* The URL followed now (borrowed): the first one at start. */
const char *hearth_masters_current (const hearth_masters_t *self);

/* Move to the URL after the current one in the list (wrapping to the
   first).  Returns the new current URL (borrowed). */
const char *hearth_masters_next (hearth_masters_t *self);

/* Whether url (borrowed; NULL: false) is one of the list, spelled the
   same. */
bool hearth_masters_has (const hearth_masters_t *self, const char *url);

/* Follow leader (borrowed), the URL a standby named.  Returns 0 when it
   is now the current URL, -1 with err when it is not a tcp://HOST:PORT
   URL, is the current one already (a standby naming itself), or is not
   one of the list (errno EACCES, err "it names the leader URL, which is
   not one of the masters given (LIST): ignored"): the caller then treats
   it as a standby that names no leader. */
int hearth_masters_follow (hearth_masters_t *self, const char *leader,
                           hearth_error_t *err);

/* What a request/reply tool does with a standby's answer: follow the
   leader it names (borrowed; NULL or "": none) as hearth_masters_follow
   does, else move to the next URL; a leader outside the list is said at
   WARN ("master A is a standby (it names the leader B, which is not one
   of the masters given (LIST): ignored)", and *unlisted set).  Returns
   whether it follows the leader. */
bool hearth_masters_to_leader (hearth_masters_t *self, const char *leader,
                               bool *unlisted);

/* Fencing: whether a message that carries epoch (0: none) is to be
   kept.  A lower non-zero epoch than the highest seen is not (false,
   and *highest, when not NULL, says the one seen); a higher one is
   adopted; 0 is always kept. */
bool hearth_masters_fence (hearth_masters_t *self, uint64_t epoch,
                           uint64_t *highest);

/* The highest epoch seen (0: none yet). */
uint64_t hearth_masters_epoch (const hearth_masters_t *self);

/* --- what the clients' links share (libcore/uplink.c, the worker's
   and the driver's link), logged through log.h ------------------ */

/* Move to the next URL of the list (nothing with one), the current one
   having done what why says ("is silent"): logged at INFO, "master A is
   silent; trying B". */
void hearth_masters_move_on (hearth_masters_t *self, const char *why);

/* A standby's ERROR body (borrowed): follow the leader it names (true,
   "master A is a standby; following the leader B" at INFO), or, naming
   none the client can use, move to the next URL (false; said through
   limit, a line a period: at WARN for a leader outside the list).
   now_ms: the monotonic clock. */
bool hearth_masters_standby (hearth_masters_t *self, const cJSON *body,
                             hearth_loglimit_t *limit, int64_t now_ms);

/* Fencing of a message (borrowed): whether to handle it; false, said at
   WARN through limit ("dropped CMD from a master of epoch E: the
   leader's epoch is F"), for an older epoch than the highest seen. */
bool hearth_masters_admit (hearth_masters_t *self, const hearth_msg_t *msg,
                           hearth_loglimit_t *limit, int64_t now_ms);

#endif
