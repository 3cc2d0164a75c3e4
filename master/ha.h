/*  ha.h - standby masters (issue 17; docs/high-availability.md): with
    --zookeeper the master is a candidate of libcore/zkelect.c's election,
    run on the master's loop.  Elected, it opens its journal (recovering
    from it as a restarted master does), stamps its epoch on everything it
    sends, and schedules; suspended (ZooKeeper out of reach) it places
    nothing until ZooKeeper is back on the same session.  A leader that
    lost its role for good (its session expired, or another leads) sets
    m->reexec and stops the loop: main.c re-executes the same command line
    in the same process, which comes back as a fresh candidate
    (docs/design-changes.md says why).  Not elected, it is a STANDBY:
    handlers.c answers everything with `standby` and the leader's URL,
    main.c's tick does nothing of a leader's. */
#ifndef HEARTH_MASTER_HA_H
#define HEARTH_MASTER_HA_H

#include "libcore/conf.h"
#include "libcore/error.h"
#include "master/master.h"

/* The election's rows of hearth-master's option table. */
/* clang-format off */
#define MASTER_HA_OPTIONS                                                    \
    {"zookeeper", HEARTH_OPT_STR, NULL, "HOST:PORT[,...]",                   \
     "a standby master elected through this ZooKeeper ensemble (needs "     \
     "--journal; docs/high-availability.md)"},                              \
    {"zookeeper-dir", HEARTH_OPT_STR, "/hearth", "PATH",                     \
     "the cluster's ZooKeeper directory (one per cluster)"},                \
    {"zookeeper-session", HEARTH_OPT_DURATION, "6s", "TIME",                 \
     "ZooKeeper session time: a dead leader is replaced after it"},         \
    {"masters", HEARTH_OPT_STR, NULL, "URL[,URL...]",                        \
     "the cluster's masters, as the clients' --master lists them: a "       \
     "standby follows, and names to clients, only a leader among them"},    \
    {"zookeeper-auth", HEARTH_OPT_STR, NULL, "FILE",                         \
     "ZooKeeper credentials, user:password on the first line (mode 600, "   \
     "the same for every master): only they may change the election"},      \
    {"restarted-after-leading", HEARTH_OPT_BOOL, NULL, NULL,                 \
     "set by the master itself when it re-executes after losing the "       \
     "leadership (with the ports it had)", .flag_only = true}
/* clang-format on */

/* Check the election's options (--zookeeper, --zookeeper-dir,
   --zookeeper-session, --zookeeper-auth's file, --masters; --zookeeper
   needs --journal, --masters needs --zookeeper), parse --masters into
   m->masters and set m->role.  0, or -1 with err naming the option. */
int master_ha_configure (master_t *m, hearth_error_t *err);

/* Join the election (nothing without --zookeeper): its descriptor and
   tick on m->loop, the node's data the master's URLs (m->url,
   m->events_url, the web's); the journal is opened when it is elected.
   Nothing without --zookeeper.  0, or -1 with err (a --masters list
   without m->url among it, for one). */
int master_ha_open (master_t *m, hearth_error_t *err);

/* Leave the election: the session ends, so the next candidate leads at
   once.  Accepts a master that never joined. */
void master_ha_close (master_t *m);

/* The command line that re-executes this master (a new array, NULL-
   terminated, whose strings are m->argv's or the array's own: free it
   with master_ha_argv_free): m->argv with the ports now bound, so that
   clients find it where they left it.  NULL on no memory. */
char **master_ha_argv (master_t *m);
void master_ha_argv_free (char ***argv_p);

#endif
