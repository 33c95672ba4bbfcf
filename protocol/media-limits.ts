/**
 * The largest media file the service takes (the spec's "2 GB"), in bytes: 2 GiB. The Worker refuses
 * bigger uploads and file_url targets with 413; the node stops a download that grows past it.
 */
export const MAX_MEDIA_BYTES = 2 * 1024 ** 3;
