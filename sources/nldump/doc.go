// Package nldump receives netlink dumps (ctnetlink's table, sock_diag's
// sockets) one datagram at a time into one buffer, and walks their
// attributes in place without copies. It knows no message's meaning.
package nldump
