// libmicrohttpd (Debian: libmicrohttpd-dev), the HTTP server under pushseal-gateway.
#include <sys/types.h>
#include <sys/socket.h>
#include <stdint.h>
#include <microhttpd.h>
