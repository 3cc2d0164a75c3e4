/*  dispatch.c - a message to its handler by a table; see dispatch.h. */
#include "config.h"

#include "libcore/dispatch.h"

const hearth_handler_t *
hearth_handler_find (const hearth_handler_t *table, size_t n, hearth_cmd_t cmd)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].cmd == cmd)
            return &table[i];
    return NULL;
}

int
hearth_dispatch (const hearth_handler_t *table, size_t n, void *self,
                 const hearth_from_t *from, hearth_msg_t *msg)
{
    const hearth_handler_t *row = hearth_handler_find (table, n, msg->cmd);
    if (!row)
        return -1;
    row->handler (self, from, msg);
    return 0;
}
