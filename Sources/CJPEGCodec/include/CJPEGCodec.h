#ifndef CJPEGCODEC_H
#define CJPEGCODEC_H
// Placeholder: the real shim lands with the Imaging module.
int jpegcodec_placeholder(void);
#endif
