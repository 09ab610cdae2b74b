package jsondec

import (
	"reflect"
	"time"
	"unsafe"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Decoders of apimachinery's most frequent UnmarshalJSON types that give
// the same result without their detour through encoding/json. Whatever
// they do not expect goes to the type's own UnmarshalJSON, so errors stay
// its errors.

// k8sDec returns the decode function for t when it is one of these types.
func k8sDec(t reflect.Type) decodeFunc {
	switch t {
	case reflect.TypeFor[metav1.Time]():
		return timeDec
	case reflect.TypeFor[intstr.IntOrString]():
		return intOrStringDec
	case reflect.TypeFor[metav1.FieldsV1]():
		return fieldsV1Dec
	}
	return nil
}

// fieldsV1Dec decodes a metav1.FieldsV1 as its UnmarshalJSON does (the
// value's exact bytes; null leaves it as it is), its document held once
// per body through the state's Strings (see Strings.Doc).
func fieldsV1Dec(s *state, p unsafe.Pointer) error {
	b, err := s.skip()
	if err != nil {
		return err
	}
	if string(b) != "null" {
		(*metav1.FieldsV1)(p).Raw = s.strs.Doc(b)
	}
	return nil
}

// timeDec decodes a metav1.Time: null is the zero time, a string is an
// RFC 3339 time in the local zone.
func timeDec(s *state, p unsafe.Pointer) error {
	t := (*metav1.Time)(p)
	switch s.cur() {
	case 'n':
		t.Time = time.Time{}
		return s.null()
	case '"':
		start := s.i
		b, err := s.strBytes()
		if err != nil {
			return err
		}
		pt, err := time.Parse(time.RFC3339, string(b))
		if err != nil {
			s.i = start
			break
		}
		t.Time = pt.Local()
		return nil
	}
	b, err := s.skip()
	if err != nil {
		return err
	}
	return t.UnmarshalJSON(b)
}

// intOrStringDec decodes an intstr.IntOrString: a string sets Type and
// StrVal, anything else sets Type to Int and a number sets IntVal.
func intOrStringDec(s *state, p unsafe.Pointer) error {
	v := (*intstr.IntOrString)(p)
	switch c := s.cur(); {
	case c == '"':
		str, err := s.str()
		if err != nil {
			return err
		}
		v.Type, v.StrVal = intstr.String, str
		return nil
	case c == 'n':
		v.Type = intstr.Int
		return s.null()
	case c == '-' || c >= '0' && c <= '9':
		start := s.i
		b, err := s.number()
		if err != nil {
			return err
		}
		if n, ok := parseInt(b); ok && n >= -1<<31 && n < 1<<31 {
			v.Type, v.IntVal = intstr.Int, int32(n)
			return nil
		}
		s.i = start
	}
	b, err := s.skip()
	if err != nil {
		return err
	}
	return v.UnmarshalJSON(b)
}
