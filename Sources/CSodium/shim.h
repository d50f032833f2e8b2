#ifndef PUSHSEAL_CSODIUM_SHIM_H
#define PUSHSEAL_CSODIUM_SHIM_H
#include <sodium.h>
#endif
