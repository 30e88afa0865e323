package main

import (
	"encoding/binary"
	"testing"
)

// bsonDoc encodes a document of string elements, in order.
func bsonDoc(kv ...string) []byte {
	var body []byte
	for i := 0; i+1 < len(kv); i += 2 {
		body = append(body, 0x02)
		body = append(body, kv[i]...)
		body = append(body, 0)
		body = binary.LittleEndian.AppendUint32(body, uint32(len(kv[i+1])+1))
		body = append(body, kv[i+1]...)
		body = append(body, 0)
	}
	doc := binary.LittleEndian.AppendUint32(nil, uint32(len(body)+5))
	return append(append(doc, body...), 0)
}

// opMsgOf builds an OP_MSG with the given flag bits and sections (each already prefixed by its kind byte).
func opMsgOf(flags uint32, sections ...[]byte) []byte {
	msg := make([]byte, 16, 64)
	binary.LittleEndian.PutUint32(msg[4:], 7)
	binary.LittleEndian.PutUint32(msg[12:], opMsg)
	msg = binary.LittleEndian.AppendUint32(msg, flags)
	for _, s := range sections {
		msg = append(msg, s...)
	}
	binary.LittleEndian.PutUint32(msg[:4], uint32(len(msg)))
	return msg
}

func body(doc []byte) []byte { return append([]byte{0}, doc...) }

func sequence(id string, docs ...[]byte) []byte {
	var payload []byte
	payload = append(payload, id...)
	payload = append(payload, 0)
	for _, d := range docs {
		payload = append(payload, d...)
	}
	s := []byte{1}
	s = binary.LittleEndian.AppendUint32(s, uint32(len(payload)+4))
	return append(s, payload...)
}

func TestCommandOf(t *testing.T) {
	cases := []struct {
		name     string
		msg      []byte
		cmd, col string
	}{
		{"update", opMsgOf(0, body(bsonDoc("update", "deliveries", "$db", "herald"))), "update", "deliveries"},
		{"sequence first", opMsgOf(0, sequence("updates", bsonDoc("q", "x")), body(bsonDoc("findAndModify", "event_pages"))), "findAndModify", "event_pages"},
		{"find", opMsgOf(0, body(bsonDoc("find", "events"))), "find", "events"},
		{"not OP_MSG", func() []byte {
			m := opMsgOf(0, body(bsonDoc("update", "x")))
			binary.LittleEndian.PutUint32(m[12:], 2004)
			return m
		}(), "", ""},
		{"truncated", opMsgOf(0, []byte{0, 5, 0}), "", ""},
	}
	for _, c := range cases {
		cmd, col := commandOf(c.msg)
		if cmd != c.cmd || col != c.col {
			t.Errorf("%s: got (%q, %q), want (%q, %q)", c.name, cmd, col, c.cmd, c.col)
		}
		if serializedCommands[cmd] != (c.cmd == "update" || c.cmd == "findAndModify") {
			t.Errorf("%s: serialized = %v", c.name, serializedCommands[cmd])
		}
	}
	if moreToCome(opMsgOf(0, body(bsonDoc("update", "x")))) || !moreToCome(opMsgOf(flagMoreToCome, body(bsonDoc("update", "x")))) {
		t.Error("moreToCome misread")
	}
	if requestID(opMsgOf(0, body(bsonDoc("ping", "x")))) != 7 {
		t.Error("requestID misread")
	}
}
