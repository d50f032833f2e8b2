// libmicrohttpd (Debian: libmicrohttpd-dev), the HTTP server under pushseal-gateway.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>

/*
 * MHD_get_connection_info is variadic, which Swift cannot call: the one question the gateway
 * asks of it, the connection's socket (so that a connection over its time can be shut down).
 */
static inline int pushseal_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}
