/* Library version. */
#include "dnet/dnet.h"

const char *dnet_version(void)
{
	return DNET_VERSION_STRING;
}
