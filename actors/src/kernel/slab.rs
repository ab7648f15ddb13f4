//! An append-only list kept in fixed-size chunks (the Dispatcher's process and mailbox
//! tables): at a hundred thousand processes a `Vec` would copy itself on every doubling and
//! leave up to half its capacity unused.

/// The list; ids index it.
pub struct Slab<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

const SLAB_CHUNK: usize = 1024;

impl<T> Default for Slab<T> {
    fn default() -> Self {
        Slab::new()
    }
}

impl<T> Slab<T> {
    pub fn new() -> Self {
        Slab {
            chunks: Vec::new(),
            len: 0,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn push(&mut self, value: T) {
        if self.len.is_multiple_of(SLAB_CHUNK) {
            self.chunks.push(Vec::with_capacity(SLAB_CHUNK));
        }
        self.chunks
            .last_mut()
            .expect("a chunk with room")
            .push(value);
        self.len += 1;
    }

    pub fn get(&self, i: usize) -> Option<&T> {
        self.chunks.get(i / SLAB_CHUNK)?.get(i % SLAB_CHUNK)
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }
}

impl<T> std::ops::Index<usize> for Slab<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i / SLAB_CHUNK][i % SLAB_CHUNK]
    }
}

impl<T> std::ops::IndexMut<usize> for Slab<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i / SLAB_CHUNK][i % SLAB_CHUNK]
    }
}
