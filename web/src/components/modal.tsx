import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/** A native modal <dialog>: focus is trapped and Escape closes it, without a library. */
export function Modal({ title, onClose, children }: { title: string; onClose: () => void; children: ComponentChildren }) {
  const ref = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    const dialog = ref.current;
    dialog?.showModal();
    return () => dialog?.close();
  }, []);
  return (
    <dialog ref={ref} aria-labelledby="modal-title" onClose={onClose}>
      <h2 id="modal-title">{title}</h2>
      {children}
    </dialog>
  );
}
