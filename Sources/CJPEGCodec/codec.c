#include "CJPEGCodec.h"
int jpegcodec_placeholder(void) { return 0; }
