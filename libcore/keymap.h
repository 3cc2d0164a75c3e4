/*  keymap.h - files that say one thing per CURVE key, a line each:

        # WHO          VALUE
        alice          8        # a comment
        bob.key        32
        Wl8jc1$u+Fvz...  0

    WHO is a public key (Z85, as `hearth-keygen --public` prints it) or
    the name of its key file in an allow directory (`alice.key`, or
    `alice`); `#` starts a comment and blank lines are skipped; the last
    line of a key wins.  hearth-master's --key-limits (cores) and
    hearth-worker's --user-map (users) are such files.

    The map is a zhashx of WHO to the value its reader made of VALUE
    (owned by the map, freed with free()).
*/
#ifndef HEARTH_KEYMAP_H
#define HEARTH_KEYMAP_H

#include <czmq.h>

#include "libcore/error.h"

/* What the map keeps of a line's VALUE (text, borrowed): a new
   allocation (the map frees it with free), or NULL with err saying what
   is wrong with it (the reader adds the file and line). */
typedef void *(hearth_keymap_value_fn) (const char *text, hearth_error_t *err);

/* Read path, "the key limits" or so in errors (what), its lines of the
   form `WHO VALUE` (form, for "expected 'KEY CORES'"), into a new map
   (the caller destroys it).  NULL with err: "cannot read WHAT PATH:
   ...", or "PATH:LINE: ..." for the first bad line. */
zhashx_t *hearth_keymap_read (const char *path, const char *what,
                              const char *form, hearth_keymap_value_fn *value,
                              hearth_error_t *err);

/* The value (borrowed) for key (Z85; NULL or "" accepted) that the key
   file name admits (NULL accepted): the line of the key, else of its
   file's name, else of that name without ".key"; NULL when none. */
void *hearth_keymap_lookup (zhashx_t *map, const char *key, const char *name);

#endif
