package main

// Updates are not atomic in FerretDB v1.24.2's SQLite backend: `update`, `findAndModify` and `delete` read the
// matching documents, apply the change in Go and write them back in separate statements, outside one transaction
// (FerretDB/FerretDB#3040). Two concurrent updates of one document therefore lose one of them: measured, 200
// concurrent `$addToSet` on one document kept 44 elements, and Herald's listing heads, quota counters and delivery
// records are all updated concurrently. So the launcher listens itself and forwards every connection to FerretDB
// on a private Unix socket, letting only one such command per collection run at a time: each is then a whole
// read-modify-write. Reads and inserts pass straight through (an insert is atomic: the unique `_id` index decides).

import (
	"encoding/binary"
	"errors"
	"io"
	"log"
	"net"
	"sync"
)

const (
	opMsg           = 2013
	flagMoreToCome  = 1 << 1
	maxMessageBytes = 48 << 20
)

// serializedCommands are the commands FerretDB runs as a read followed by a separate write.
var serializedCommands = map[string]bool{"update": true, "findAndModify": true, "findandmodify": true, "delete": true}

// collectionLocks holds one mutex per collection name.
type collectionLocks struct {
	mu sync.Mutex
	m  map[string]*sync.Mutex
}

func (l *collectionLocks) get(name string) *sync.Mutex {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.m == nil {
		l.m = map[string]*sync.Mutex{}
	}
	if l.m[name] == nil {
		l.m[name] = &sync.Mutex{}
	}
	return l.m[name]
}

// readMessage reads one wire-protocol message (header included).
func readMessage(r io.Reader) ([]byte, error) {
	var header [16]byte
	if _, err := io.ReadFull(r, header[:]); err != nil {
		return nil, err
	}
	n := int(int32(binary.LittleEndian.Uint32(header[:4])))
	if n < 16 || n > maxMessageBytes {
		return nil, errors.New("bad message length")
	}
	msg := make([]byte, n)
	copy(msg, header[:])
	_, err := io.ReadFull(r, msg[16:])
	return msg, err
}

func requestID(msg []byte) int32  { return int32(binary.LittleEndian.Uint32(msg[4:8])) }
func responseTo(msg []byte) int32 { return int32(binary.LittleEndian.Uint32(msg[8:12])) }
func moreToCome(msg []byte) bool {
	return len(msg) >= 20 && binary.LittleEndian.Uint32(msg[12:16]) == opMsg &&
		binary.LittleEndian.Uint32(msg[16:20])&flagMoreToCome != 0
}

// commandOf returns an OP_MSG's command name and, when its value is a string, the collection it names.
func commandOf(msg []byte) (name, collection string) {
	if len(msg) < 21 || binary.LittleEndian.Uint32(msg[12:16]) != opMsg {
		return "", ""
	}
	for i := 20; i < len(msg); {
		kind := msg[i]
		i++
		if kind == 1 { // a document sequence: int32 size (itself included), identifier, documents
			if i+4 > len(msg) {
				return "", ""
			}
			i += int(binary.LittleEndian.Uint32(msg[i : i+4]))
			continue
		}
		if kind != 0 || i+5 > len(msg) {
			return "", ""
		}
		doc := msg[i+4:] // past the document's length: its first element is the command
		elemType := doc[0]
		end := 1
		for end < len(doc) && doc[end] != 0 {
			end++
		}
		if end >= len(doc) {
			return "", ""
		}
		name = string(doc[1:end])
		if v := doc[end+1:]; elemType == 0x02 && len(v) >= 4 {
			size := int(int32(binary.LittleEndian.Uint32(v[:4])))
			if size >= 1 && 4+size <= len(v) {
				collection = string(v[4 : 4+size-1])
			}
		}
		return name, collection
	}
	return "", ""
}

// serveSerialized accepts client connections on ln and forwards each to the FerretDB socket at backend.
func serveSerialized(ln net.Listener, backend string) {
	locks := &collectionLocks{}
	for {
		c, err := ln.Accept()
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				log.Printf("accept: %v", err)
			}
			return
		}
		go forward(c, backend, locks)
	}
}

// forward copies messages both ways; a serialized command holds its collection's lock from the moment it is sent
// until its reply comes back (or the connection ends). A driver sends one command at a time per connection.
func forward(client net.Conn, backend string, locks *collectionLocks) {
	defer client.Close()
	server, err := net.Dial("unix", backend)
	if err != nil {
		log.Printf("dial FerretDB: %v", err)
		return
	}
	defer server.Close()

	var mu sync.Mutex
	held := map[int32]*sync.Mutex{}
	closed := false
	releaseAll := func() {
		mu.Lock()
		defer mu.Unlock()
		closed = true
		for id, lock := range held {
			lock.Unlock()
			delete(held, id)
		}
	}
	defer releaseAll()

	done := make(chan struct{}, 2)
	go func() { // client → FerretDB
		defer func() { done <- struct{}{} }()
		for {
			msg, err := readMessage(client)
			if err != nil {
				return
			}
			if name, coll := commandOf(msg); serializedCommands[name] && !moreToCome(msg) {
				lock := locks.get(coll)
				lock.Lock()
				mu.Lock()
				if closed { // the connection ended while this command waited: nobody would release the lock
					mu.Unlock()
					lock.Unlock()
					return
				}
				held[requestID(msg)] = lock
				mu.Unlock()
			}
			if _, err := server.Write(msg); err != nil {
				return
			}
		}
	}()
	go func() { // FerretDB → client
		defer func() { done <- struct{}{} }()
		for {
			msg, err := readMessage(server)
			if err != nil {
				return
			}
			if _, err := client.Write(msg); err != nil {
				return
			}
			mu.Lock()
			if lock, ok := held[responseTo(msg)]; ok && !moreToCome(msg) {
				delete(held, responseTo(msg))
				lock.Unlock()
			}
			mu.Unlock()
		}
	}()
	<-done
}
