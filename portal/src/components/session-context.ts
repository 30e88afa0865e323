import { createContext } from 'preact';
import { useContext } from 'preact/hooks';
import type { Session } from '../types';

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in shell');
  return session;
}

/** scope "manage": write controls are shown; scope "read": none at all. */
export const useCanManage = (): boolean => useSession().scope === 'manage';
