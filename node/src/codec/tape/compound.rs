//! The arrays and objects of a tape: their elements, fields and entries.

use serde::ser::{self, Serialize};

use super::super::keys;
use super::super::map_key::MapKey;
use super::{Compound, SerError};

macro_rules! elements {
    ($($trait:ident :: $method:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = SerError;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
                self.open.count += 1;
                value.serialize(&mut *self.tape)
            }

            fn end(self) -> Result<(), SerError> {
                Compound::end(self);
                Ok(())
            }
        }
    )*};
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field
);

macro_rules! fields {
    ($($trait:ident),*) => {$(
        impl ser::$trait for Compound<'_> {
            type Ok = ();
            type Error = SerError;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                key: &'static str,
                value: &T,
            ) -> Result<(), SerError> {
                self.open.count += 1;
                if self.fields_from.is_some() {
                    // A struct's keys are its shape's; only its values are on the tape.
                    self.tape.fields.push(key);
                } else {
                    self.tape.tags.push(f64::from(keys::number(key)));
                }
                value.serialize(&mut *self.tape)
            }

            fn end(self) -> Result<(), SerError> {
                Compound::end(self);
                Ok(())
            }
        }
    )*};
}

fields!(SerializeStruct, SerializeStructVariant);

impl ser::SerializeMap for Compound<'_> {
    type Ok = ();
    type Error = SerError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), SerError> {
        self.open.count += 1;
        // A key of the data: written as a piece after a negative number.
        self.tape.tags.push(-1.0);
        key.serialize(MapKey(&mut *self.tape))
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), SerError> {
        value.serialize(&mut *self.tape)
    }

    fn end(self) -> Result<(), SerError> {
        Compound::end(self);
        Ok(())
    }
}
