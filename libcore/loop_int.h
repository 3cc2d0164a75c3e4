/*  loop_int.h - what the loop (loop.c) and its children's watch
    (loop_child.c) share: the watch's state hangs off the loop, made at
    the first child and freed with the loop.
*/
#ifndef HEARTH_LIBCORE_LOOP_INT_H
#define HEARTH_LIBCORE_LOOP_INT_H

#include "libcore/loop.h"

typedef struct hearth_loop_kids hearth_loop_kids_t;

/* The loop's children's watch, or NULL before its first child. */
hearth_loop_kids_t *hearth_loop_kids (const hearth_loop_t *self);

/* Hang kids off the loop (owned by it from here): at its destroy,
   free_fn (kids) stops each child's thread and frees the watch, the
   children left as they are.  (A function given, not called by name:
   the loop does not depend on the file of its children.) */
void hearth_loop_kids_set (hearth_loop_t *self, hearth_loop_kids_t *kids,
                           void (*free_fn) (hearth_loop_kids_t *kids));

#endif
