//! Typed arenas and handles, naga style.
//!
//! An [`Arena<T>`] owns items of one kind; a [`Handle<T>`] is a cheap, copyable index into it. Handles
//! carry their item type, so a handle to a value can never be used where a handle to something else is
//! expected. A handle from another arena (or a fabricated one) may be out of range: [`Arena::get`]
//! returns `None` then, and the verifier reports it as a dangling handle.

use std::fmt;
use std::marker::PhantomData;

/// A typed index into an [`Arena`]. Printed as its index.
pub struct Handle<T> {
    index: u32,
    marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    /// A handle from a raw index. It is not checked against any arena: the verifier does that.
    pub const fn from_index(index: u32) -> Self {
        Handle {
            index,
            marker: PhantomData,
        }
    }

    /// The raw index of this handle.
    pub const fn index(self) -> usize {
        self.index as usize
    }
}

impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.index.cmp(&other.index)
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state)
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.index)
    }
}

/// An append-only store of items addressed by [`Handle`]s.
#[derive(Clone, PartialEq, Eq)]
pub struct Arena<T> {
    items: Vec<T>,
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena { items: Vec::new() }
    }
}

impl<T: fmt::Debug> fmt::Debug for Arena<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<T> Arena<T> {
    /// An empty arena.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds an item and returns its handle.
    ///
    /// # Panics
    /// If the arena already holds `u32::MAX` items (a kernel that size cannot be emitted anyway).
    pub fn append(&mut self, item: T) -> Handle<T> {
        let index = u32::try_from(self.items.len()).expect("arena holds at most u32::MAX items");
        self.items.push(item);
        Handle::from_index(index)
    }

    /// The item behind `handle`, or `None` when the handle is out of range.
    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        self.items.get(handle.index())
    }

    /// Mutable access to the item behind `handle`, or `None` when out of range.
    pub fn get_mut(&mut self, handle: Handle<T>) -> Option<&mut T> {
        self.items.get_mut(handle.index())
    }

    /// How many items the arena holds.
    pub fn len(&self) -> usize {
        self.items.len()
    }

    /// Whether the arena is empty.
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// Items with their handles, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.items
            .iter()
            .enumerate()
            .map(|(i, item)| (Handle::from_index(i as u32), item))
    }
}

impl<T> std::ops::Index<Handle<T>> for Arena<T> {
    type Output = T;
    /// Panics on a dangling handle; code that may see unverified IR uses [`Arena::get`].
    fn index(&self, handle: Handle<T>) -> &T {
        &self.items[handle.index()]
    }
}
